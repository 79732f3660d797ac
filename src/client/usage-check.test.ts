import { describe, expect, it } from 'vitest';
import { applyEvent, newStreamState } from './stream-reader.ts';
import { checkUsage, outputSlack, type UsageFacts } from './usage-check.ts';

/** The usage objects of a stream, as the reader collects them. */
function seen(...usages: Record<string, unknown>[]) {
  const s = newStreamState();
  for (const u of usages) applyEvent(s, 'completions', JSON.stringify({ choices: [], usage: u }), 0);
  return s.usage;
}

const facts: UsageFacts = { maxTokens: 100, clientPromptTokens: 1000, tokenChunks: 100 };
const usage = (prompt: unknown, completion: unknown) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
});

describe('checkUsage', () => {
  it('accepts honest counts, and nothing is flagged without usage', () => {
    expect(checkUsage(seen(usage(1000, 100)), facts)).toEqual({
      promptTokens: 1000,
      completionTokens: 100,
      flag: null,
    });
    expect(checkUsage(null, facts)).toEqual({ promptTokens: null, completionTokens: null, flag: null });
    // An identical repeat (some servers send usage twice) is harmless; a null usage is none.
    expect(checkUsage(seen(usage(1000, 100), usage(1000, 100)), facts).flag).toBeNull();
    expect(checkUsage(seen({ prompt_tokens: null }), facts).flag).toBeNull();
  });

  it.each([
    ['negative', -100, 'not_a_count'],
    ['non-integer', 2.5, 'not_a_count'],
    ['a string', '100', 'not_a_count'],
    ['unsafe', 1e300, 'not_a_count'],
    ['above max_tokens + slack', 105, 'over_max_tokens'],
    ['huge', 10 ** 12, 'over_max_tokens'],
    ['below the token chunks received', 50, 'under_token_chunks'],
  ])('rejects completion_tokens that is %s', (_, value, problem) => {
    const v = checkUsage(seen(usage(1000, value)), facts);
    expect(v.completionTokens).toBeNull();
    expect(v.promptTokens).toBe(1000);
    expect(v.flag).toMatchObject({ input: false, output: true, problems: [problem] });
    expect(v.flag!.message).toContain('completion_tokens');
  });

  it('allows max_tokens plus a small slack: max(4, 1%)', () => {
    expect(outputSlack(100)).toBe(4);
    expect(outputSlack(8192)).toBe(82);
    expect(checkUsage(seen(usage(1000, 104)), facts).flag).toBeNull();
    expect(checkUsage(seen(usage(1000, 96)), facts).flag).toBeNull();
  });

  it('rejects a second usage chunk that disagrees with the first, per field', () => {
    const v = checkUsage(seen(usage(1000, 100), usage(1000, 2500)), facts);
    expect(v).toMatchObject({ promptTokens: 1000, completionTokens: null });
    expect(v.flag).toMatchObject({ input: false, output: true, problems: ['disagreeing_chunks'] });
    expect(v.flag!.message).toMatch(/disagree on completion_tokens: 100, then 2500/);
    const p = checkUsage(seen(usage(1000, 100), usage(1001, 100)), facts);
    expect(p).toMatchObject({ promptTokens: null, completionTokens: 100 });
    expect(p.flag).toMatchObject({ input: true, output: false });
  });

  it('checks prompt_tokens against the client count within [client / 8, client x 8 + 4096]', () => {
    for (const ok of [125, 1000, 3000, 12_096])
      expect(checkUsage(seen(usage(ok, 100)), facts).flag, String(ok)).toBeNull();
    for (const bad of [124, 12_097, 10 ** 12]) {
      const v = checkUsage(seen(usage(bad, 100)), facts);
      expect(v.flag, String(bad)).toMatchObject({
        input: true,
        output: false,
        problems: ['implausible_prompt'],
      });
      expect(v.promptTokens).toBeNull();
    }
    for (const bad of [-1, 0.5, 'x'])
      expect(checkUsage(seen(usage(bad, 100)), facts).flag?.problems).toEqual(['not_a_count']);
    // Both fields wrong: both flagged, both problems named.
    const both = checkUsage(seen(usage(-5, -100)), facts);
    expect(both.flag).toMatchObject({ input: true, output: true, problems: ['not_a_count'] });
    expect(both.flag!.message).toMatch(/completion_tokens -100 .*prompt_tokens -5/);
  });
});
