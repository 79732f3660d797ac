import { describe, expect, it } from 'vitest';
import { AgenticTraceSchema } from './agentic-trace.ts';

const base = { id: 'a', block_size: 64, tool_tokens: 1, system_tokens: 2 };
const parse = (requests: unknown[]) => AgenticTraceSchema.safeParse({ ...base, requests });

describe('AgenticTraceSchema', () => {
  it('reads the older `output_length` as `out`, at the top level and inside a subagent', () => {
    const r = parse([
      { type: 'n', t: 0, in: 64, output_length: 3, hash_ids: [1] },
      {
        type: 'subagent',
        t: 1,
        agent_id: 'q',
        requests: [{ type: 's', t: 1, in: 64, output_length: 4, hash_ids: [2] }],
      },
    ]);
    expect(r.success).toBe(true);
    const reqs = r.data?.requests as { out?: number; requests?: { out: number }[] }[];
    expect(reqs[0]?.out).toBe(3);
    expect(reqs[1]?.requests?.[0]?.out).toBe(4);
  });

  it('names the field of the kind of entry it is', () => {
    const bad = parse([{ type: 'n', t: 0, in: 64, out: -1, hash_ids: [1] }]);
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['requests.0.out']);
    const nested = parse([
      {
        type: 'subagent',
        t: 0,
        agent_id: 'q',
        requests: [{ type: 'n', t: 0, in: 64, out: 1, hash_ids: ['x'] }],
      },
    ]);
    expect(nested.error?.issues.map((i) => i.path.join('.'))).toEqual(['requests.0.requests.0.hash_ids.0']);
    const kind = parse([{ type: 'x', t: 0 }]);
    expect(kind.error?.issues[0]?.path.join('.')).toBe('requests.0.type');
  });

  it('keeps fields it does not know', () => {
    const r = AgenticTraceSchema.parse({
      ...base,
      extra: 1,
      requests: [{ type: 'n', t: 0, in: 0, out: 0, hash_ids: [], x: 2 }],
    });
    expect(r).toMatchObject({ extra: 1, requests: [{ x: 2 }] });
  });
});
