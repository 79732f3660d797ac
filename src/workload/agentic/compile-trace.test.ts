import { describe, expect, it } from 'vitest';
import { blockCall, blockTrace } from '../../../test/support/traces.ts';
import { assembleTrace, compileTraceParts } from './compile-trace.ts';
import type { CompiledCall } from './compile-types.ts';

const call = (t: number, ids: number[], out = 10, model = 'big') =>
  blockCall(t, ids, out, { type: 's', model });
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
// tool + system = 100 tokens: ceil(100 / 64) = 2 system blocks.
const trace = (requests: unknown[]) => blockTrace('T', requests, 60, 40);

/** A call's messages as role letters and their hash ids. */
const shape = (c: CompiledCall) => c.messages.map((m) => `${m.role[0]}:${[...m.ids].join(',')}`);

// The hand-built trace:
//   o0 preamble [900] out 20 (small model), disjoint from everything
//   o1 [1,2,3,4]          → fresh: system [1,2], user [3,4]
//   o2 [1..4,5,6,7] (o1 out 100 → ceil(100/64) = 2 assistant blocks [5,6], user [7])
//   o3 subagent: i0 [1,2,50,51]  fresh: system [1,2] (bytes shared with root), user [50,51]
//                i1 [1,2,50,51,52] (i0 out 10 → 1 block, but one must stay for the user: assistant 0) → user [52]
//   o4 [1..7,8,9,10,11] (o2 out 150 → 3 assistant blocks [8,9,10], user [11])
//   o5 compaction [1,2,60,61]: shares [1,2] = the system message → reset, system kept, user [60,61]
//   o6 [1,2,60,61,62]  o5 out 1 → assistant 1 block? fresh = 1 → min(1, 0) = 0: user [62]
const T = trace([
  call(0, [900], 20, 'small'),
  call(1, [1, 2, 3, 4], 100),
  call(2, range(1, 7), 150),
  {
    type: 'subagent',
    t: 3,
    agent_id: 'a',
    requests: [call(3, [1, 2, 50, 51], 10, 'small'), call(4, [1, 2, 50, 51, 52], 10, 'small')],
  },
  call(5, range(1, 11), 30),
  call(6, [1, 2, 60, 61], 1),
  call(7, [1, 2, 60, 61, 62], 5, 'third'),
]);

describe('compileTraceParts', () => {
  const compiled = assembleTrace(compileTraceParts(T));
  const c = compiled.calls;

  it('compiles every call, preamble and subagent calls included, in file order', () => {
    expect(c.map((x) => [x.outer, x.inner])).toEqual([
      [0, -1],
      [1, -1],
      [2, -1],
      [3, 0],
      [3, 1],
      [4, -1],
      [5, -1],
      [6, -1],
    ]);
    expect(c.map((x) => x.preamble)).toEqual([true, false, false, false, false, false, false, false]);
  });

  it('accumulates the conversation with the recorded outputs as assistant turns', () => {
    expect(shape(c[0] as CompiledCall)).toEqual(['u:900']);
    expect(shape(c[1] as CompiledCall)).toEqual(['s:1,2', 'u:3,4']);
    expect(shape(c[2] as CompiledCall)).toEqual(['s:1,2', 'u:3,4', 'a:5,6', 'u:7']);
    expect(shape(c[5] as CompiledCall)).toEqual(['s:1,2', 'u:3,4', 'a:5,6', 'u:7', 'a:8,9,10', 'u:11']);
    // The same message objects, not copies: the prefix exists once.
    for (let i = 0; i < 4; i++)
      expect((c[5] as CompiledCall).messages[i]).toBe((c[2] as CompiledCall).messages[i]);
  });

  it('holds the ids of a run of extending calls once: earlier turns are prefix views of the last', () => {
    const [o1, o2, o4] = [c[1], c[2], c[5]] as CompiledCall[];
    expect(o1?.hashIds.buffer).toBe(o4?.hashIds.buffer);
    expect(o2?.hashIds.buffer).toBe(o4?.hashIds.buffer);
    expect([...(o1 as CompiledCall).hashIds]).toEqual([1, 2, 3, 4]);
    // After the compaction a new run starts: its own array.
    expect(c[6]?.hashIds.buffer).not.toBe(o4?.hashIds.buffer);
    expect(c[6]?.hashIds.buffer).toBe(c[7]?.hashIds.buffer);
  });

  it('gives subagents fresh context with the same system split, and their own chain', () => {
    expect(shape(c[3] as CompiledCall)).toEqual(['s:1,2', 'u:50,51']);
    expect(shape(c[4] as CompiledCall)).toEqual(['s:1,2', 'u:50,51', 'u:52']);
    expect((c[3] as CompiledCall).resetContext).toBe(false);
  });

  it('resets the context on compaction, keeping only the messages inside the common prefix', () => {
    const k = c[6] as CompiledCall;
    expect(k.resetContext).toBe(true);
    expect(shape(k)).toEqual(['s:1,2', 'u:60,61']);
    expect(k.messages[0]).toBe((c[5] as CompiledCall).messages[0]);
    expect(shape(c[7] as CompiledCall)).toEqual(['s:1,2', 'u:60,61', 'u:62']);
    expect((c[7] as CompiledCall).resetContext).toBe(false);
  });

  it('sets max tokens, input tokens and the marker position; maps models by slot', () => {
    expect(c.map((x) => x.maxTokens)).toEqual([20, 100, 150, 10, 10, 30, 1, 5]);
    expect(c.map((x) => x.inputTokens)).toEqual([64, 256, 448, 256, 320, 704, 256, 320]);
    expect(c.map((x) => x.markerMessage)).toEqual([0, 1, 1, 1, 1, 1, 1, 1]);
    // The main model is the first non-preamble main call's, even though the preamble's appears first.
    expect(compiled.models).toEqual(['big', 'small', 'third']);
    expect(c.map((x) => x.modelSlot)).toEqual([1, 0, 0, 1, 1, 0, 0, 2]);
  });

  it('does not flag a leading call that shares its first block with another call', () => {
    const t = trace([call(0, [1], 5), call(1, [1, 2], 5)]);
    expect(compileTraceParts(t).calls.map((x) => x.preamble)).toEqual([false, false]);
  });
});
