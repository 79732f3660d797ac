import { describe, expect, it } from 'vitest';
import { AgenticTraceSchema } from '../../schema/agentic-trace.ts';
import { synthTrace } from './synth.ts';
import { isTrace } from './trace-check.ts';

/** A JSON round trip: what a line parses to, fresh for each mutation. */
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
type Obj = Record<string, unknown>;
const base = (): Obj => ({
  id: 'a',
  block_size: 64,
  tool_tokens: 0,
  system_tokens: 0,
  requests: [
    { type: 'n', t: 0, in: 64, out: 1, hash_ids: [0], stop: null, api_time: 1.5 },
    {
      type: 'subagent',
      t: 1,
      agent_id: 'x',
      status: 'completed',
      duration_ms: null,
      requests: [{ type: 's', t: 1, in: 128, output_length: 3, hash_ids: [0, 1], extra: true }],
    },
  ],
});
const entry = (v: Obj, i: number) => (v.requests as Obj[])[i] as Obj;
const inner = (v: Obj) => (entry(v, 1).requests as Obj[])[0] as Obj;

/** Each a change to `base()`; some keep it valid, most do not. */
const mutations: [string, (v: Obj) => void][] = [
  ['as is', () => {}],
  ['no id', (v) => delete v.id],
  ['empty id', (v) => (v.id = '')],
  ['block_size 0', (v) => (v.block_size = 0)],
  ['block_size 1.5', (v) => (v.block_size = 1.5)],
  ['tool_tokens -1', (v) => (v.tool_tokens = -1)],
  ['system_tokens "3"', (v) => (v.system_tokens = '3')],
  ['no requests', (v) => (v.requests = [])],
  ['requests an object', (v) => (v.requests = {})],
  ['models a string', (v) => (v.models = 'm')],
  ['models strings', (v) => (v.models = ['m'])],
  ['an unknown field', (v) => (v.later = { x: 1 })],
  ['type x', (v) => (entry(v, 0).type = 'x')],
  ['no type', (v) => delete entry(v, 0).type],
  ['t negative', (v) => (entry(v, 0).t = -1)],
  ['in 1.5', (v) => (entry(v, 0).in = 1.5)],
  ['in unsafe', (v) => (entry(v, 0).in = 2 ** 60)],
  ['out absent', (v) => delete entry(v, 0).out],
  [
    'out absent, output_length',
    (v) => {
      delete entry(v, 0).out;
      entry(v, 0).output_length = 4;
    },
  ],
  ['out and output_length', (v) => (entry(v, 0).output_length = 'ignored')],
  ['a hash id negative', (v) => (entry(v, 0).hash_ids = [1, -2])],
  ['a hash id a string', (v) => (entry(v, 0).hash_ids = [1, '2'])],
  ['hash_ids null', (v) => (entry(v, 0).hash_ids = null)],
  ['stop a number', (v) => (entry(v, 0).stop = 1)],
  ['api_time null', (v) => (entry(v, 0).api_time = null)],
  ['api_time a string', (v) => (entry(v, 0).api_time = '1')],
  ['think_time negative', (v) => (entry(v, 0).think_time = -3)],
  ['input_types numbers', (v) => (entry(v, 0).input_types = [1])],
  ['model null', (v) => (entry(v, 0).model = null)],
  ['an entry an array', (v) => ((v.requests as unknown[])[0] = [])],
  ['agent_id empty', (v) => (entry(v, 1).agent_id = '')],
  ['subagent requests absent', (v) => delete entry(v, 1).requests],
  ['subagent requests empty', (v) => (entry(v, 1).requests = [])],
  ['subagent status 3', (v) => (entry(v, 1).status = 3)],
  ['subagent models null', (v) => (entry(v, 1).models = null)],
  ['inner output_length a string', (v) => (inner(v).output_length = 'x')],
  ['inner type subagent', (v) => (inner(v).type = 'subagent')],
  ['inner hash id 0.5', (v) => (inner(v).hash_ids = [0.5])],
];

describe('the fast trace check', () => {
  it.each(mutations)('agrees with the schema: %s', (_, mutate) => {
    const value = base();
    mutate(value);
    const zod = AgenticTraceSchema.safeParse(copy(value));
    const fast = copy(value);
    // Never accepts what the schema refuses, and then leaves the value as the schema returns it.
    if (isTrace(fast)) {
      expect(zod.success).toBe(true);
      expect(fast).toEqual(zod.data);
    }
    expect(isTrace(copy(value))).toBe(zod.success);
  });

  it('accepts synthetic traces as the schema returns them', () => {
    for (let i = 0; i < 3; i++) {
      const line = copy(synthTrace(3, i, 131_072));
      const zod = AgenticTraceSchema.parse(copy(line));
      expect(isTrace(line)).toBe(true);
      expect(line).toEqual(zod);
    }
  });
});
