import { describe, expect, it } from 'vitest';
import { boundedInt, CONFIG_BOUNDS, SAFE_NAME, SingleNodeSearchSpaceSchema } from './master-config.ts';

const issues = (schema: { safeParse: (v: unknown) => { error?: { issues: unknown[] } } }, v: unknown) =>
  (schema.safeParse(v).error?.issues ?? []) as Array<{
    code: string;
    message: string;
    params?: { rule?: string };
  }>;

describe('boundedInt', () => {
  const conc = boundedInt({ max: 100, unit: 'requests' });
  const len = boundedInt({ min: 1, max: 10, unit: 'tokens' });

  it('says "too large" above the bound and beyond the safe-integer range, with one message', () => {
    expect(issues(conc, 101)).toEqual([
      expect.objectContaining({
        message: 'is too large (101): at most 100 requests',
        params: { rule: 'value.too-large' },
      }),
    ]);
    const huge = issues(conc, 1e23);
    expect(new Set(huge.map((i) => i.message))).toEqual(
      new Set(['is too large (1e+23): at most 100 requests']),
    );
  });

  it('says what the minimum is, and what a non-integer is', () => {
    expect(issues(len, 0)[0]?.message).toBe('must be greater than 0 (got 0)');
    expect(issues(len, 1.5)[0]?.message).toBe('expected an integer, got float 1.5');
    expect(issues(len, '8')[0]?.message).toBe("expected an integer, got str '8'");
    expect(issues(len, 10)).toEqual([]);
  });
});

describe('search-space bounds', () => {
  it('accepts the bounds themselves', () => {
    const max = CONFIG_BOUNDS.maxConcurrency;
    expect(SingleNodeSearchSpaceSchema.safeParse({ tp: 8, 'conc-start': 1, 'conc-end': max }).success).toBe(
      true,
    );
    const list = Array.from({ length: CONFIG_BOUNDS.maxConcList }, (_, i) => i + 1);
    expect(SingleNodeSearchSpaceSchema.safeParse({ tp: 8, 'conc-list': list }).success).toBe(true);
    expect(SingleNodeSearchSpaceSchema.safeParse({ tp: 8, 'conc-list': [...list, 1] }).success).toBe(false);
  });

  it('tp and ep are positive', () => {
    for (const bad of [{ tp: 0 }, { tp: -8 }, { tp: 8, ep: 0 }])
      expect(SingleNodeSearchSpaceSchema.safeParse({ ...bad, 'conc-list': [4] }).success).toBe(false);
  });
});

describe('SAFE_NAME', () => {
  it.each(['dsr1', 'qwen3.5', 'cluster:b300-nv', 'h100-dgxc-slurm_00', 'glm5.2', 'dynamo-trt'])(
    'accepts %s',
    (v) => {
      expect(SAFE_NAME.test(v)).toBe(true);
    },
  );
  it.each(['', '..', '.hidden', 'a/b', '../x', 'a\\b', 'a b', 'a\nb', '-x', 'é'])('refuses %j', (v) => {
    expect(SAFE_NAME.test(v)).toBe(false);
  });
});
