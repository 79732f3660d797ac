import { describe, expect, it } from 'vitest';
import { blockCall, blockTrace } from '../../../test/support/traces.ts';
import { buildConversationPayload, type ChatMessage } from '../payload.ts';
import { loadTokenizer } from '../tokenizers.ts';
import { compileTraces } from './compile.ts';
import { cacheBust, PART_BLOCKS, servedModel, TraceTexts } from './compile-body.ts';
import type { CompiledCall, CompiledCorpus } from './compile-types.ts';
import { synthTrace } from './synth.ts';
import { apiCalls } from './walk.ts';

const call = blockCall;
const trace = (id: string, requests: unknown[]) => blockTrace(id, requests, 100, 20);

const A = trace('A', [
  call(0, [1, 2, 3]),
  call(1, [1, 2, 3, 4, 5], 64),
  { type: 'subagent', t: 2, agent_id: 'x', requests: [call(2, [1, 2, 7]), call(3, [1, 2, 7, 8, 9])] },
]);
const B = trace('B', [call(0, [1, 2, 3])]);
const tokenizer = await loadTokenizer();

const bodyText = (texts: TraceTexts, c: CompiledCall, marker: ReturnType<typeof cacheBust> | null) =>
  Buffer.concat(texts.body(c, { served: ['served-main', 'served-small'], marker })).toString('utf8');
const parsed = (text: string) => JSON.parse(text) as { model: string; messages: ChatMessage[] };

describe('compiled bodies', () => {
  const corpus: CompiledCorpus = compileTraces([A, B], { tokenizer, seed: 7 });
  const [ta, tb] = corpus.traces as [CompiledCorpus['traces'][0], CompiledCorpus['traces'][0]];
  const texts = new TraceTexts(corpus, ta);
  const calls = ta.calls as CompiledCall[];

  it('encodes to exactly blocks × block_size tokens under o200k, and the marker adds its own count', () => {
    const marker = cacheBust(tokenizer, 'run-1', 0, 'A');
    for (const c of calls) {
      const { messages } = parsed(bodyText(texts, c, marker));
      for (const m of messages)
        expect(m.content.startsWith(marker.text) ? 0 : tokenizer.encode(m.content).length % 64).toBe(0);
      const all = messages.map((m) => m.content).join('');
      expect(tokenizer.encode(all).length).toBe(c.hashIds.length * 64 + marker.tokens);
      expect(texts.inputTokens(c, marker)).toBe(c.hashIds.length * 64 + marker.tokens);
    }
  });

  it('gives shared hash ids byte-identical prefixes: across turns, and from root to subagent', () => {
    const [r0, r1, s0, s1] = calls.map((c) => parsed(bodyText(texts, c, null)).messages) as ChatMessage[][];
    // [1,2] is the system message (ceil(120 / 64) = 2 blocks) everywhere.
    expect(r1?.[0]).toEqual(r0?.[0]);
    expect(s0?.[0]).toEqual(r0?.[0]);
    expect(r1?.[1]).toEqual(r0?.[1]);
    expect(s1?.slice(0, 2)).toEqual(s0);
    // Different ids, different bytes; the same id in another trace (ids are local), different bytes.
    expect(s0?.[1]?.content).not.toBe(r0?.[1]?.content);
    const other = parsed(bodyText(new TraceTexts(corpus, tb), tb.calls[0] as CompiledCall, null)).messages;
    expect(other[0]?.content).not.toBe(r0?.[0]?.content);
    // Rendered once per play: the same Buffer for the shared message.
    expect(texts.framed((calls[1] as CompiledCall).messages[0] as never)).toBe(
      texts.framed((calls[0] as CompiledCall).messages[0] as never),
    );
  });

  it('depends on the seed', () => {
    const again = compileTraces([A], { tokenizer, seed: 8 });
    const t8 = new TraceTexts(again, again.traces[0] as never);
    expect(bodyText(t8, again.traces[0]?.calls[0] as CompiledCall, null)).not.toBe(
      bodyText(texts, calls[0] as CompiledCall, null),
    );
  });

  it('is the bytes buildConversationPayload makes for the same messages', () => {
    const marker = cacheBust(tokenizer, 'run-1', 3, 'A');
    const c = calls[1] as CompiledCall;
    const text = bodyText(texts, c, marker);
    const messages = parsed(text).messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[1]?.content.startsWith(marker.text)).toBe(true);
    const expected = buildConversationPayload(
      { endpoint: 'chat', model: 'served-main', ignoreEos: true },
      messages,
      64,
    );
    expect(text).toBe(expected.toString('utf8'));
    // A message is one segment (its framing rendered with it); the marker splits its message in three.
    const served = ['served-main'];
    expect(texts.body(c, { served, marker: null })).toHaveLength(1 + messages.length + 1);
    expect(texts.body(c, { served, marker })).toHaveLength(1 + messages.length + 2 + 1);
  });

  it('marks plays apart: one marker per (run, play, trace), the same for every turn of a play', () => {
    const p0 = cacheBust(tokenizer, 'run-1', 0, 'A');
    expect(cacheBust(tokenizer, 'run-1', 0, 'A')).toEqual(p0);
    expect(p0.text).toMatch(/^\[rid:[0-9a-f]{12}\]\n\n$/);
    expect(cacheBust(tokenizer, 'run-1', 1, 'A').text).not.toBe(p0.text);
    expect(cacheBust(tokenizer, 'run-1', 0, 'B').text).not.toBe(p0.text);
    expect(cacheBust(tokenizer, 'run-2', 0, 'A').text).not.toBe(p0.text);
    const firstUser = (c: CompiledCall) =>
      parsed(bodyText(texts, c, p0)).messages[c.markerMessage]?.content ?? '';
    const prefixes = calls.map((c) => firstUser(c).slice(0, p0.text.length));
    expect(new Set(prefixes)).toEqual(new Set([p0.text]));
  });

  it('maps models: main → --model[0], the others → --model[1..] wrapping', () => {
    expect(servedModel(['m0'], 3)).toBe('m0');
    expect(servedModel(['m0', 'm1', 'm2'], 0)).toBe('m0');
    expect(servedModel(['m0', 'm1', 'm2'], 1)).toBe('m1');
    expect(servedModel(['m0', 'm1', 'm2'], 2)).toBe('m2');
    expect(servedModel(['m0', 'm1', 'm2'], 3)).toBe('m1');
    expect(parsed(bodyText(texts, calls[0] as CompiledCall, null)).model).toBe('served-main');
  });

  it('stays token-exact on a synthetic trace with compactions and subagents', () => {
    const t = synthTrace(3, 0, 262_144);
    const compiled = compileTraces([t], { tokenizer, seed: 1 });
    const ct = compiled.traces[0] as CompiledCorpus['traces'][0];
    expect(ct.calls.some((c) => c.resetContext)).toBe(true);
    const tt = new TraceTexts(compiled, ct);
    const marker = cacheBust(tokenizer, 'r', 0, ct.id);
    const sample = ct.calls.filter((_, i) => i % 37 === 0 || ct.calls[i]?.resetContext);
    for (const c of sample.slice(0, 12)) {
      const all = parsed(bodyText(tt, c, marker))
        .messages.map((m) => m.content)
        .join('');
      expect(tokenizer.encode(all).length).toBe(c.inputTokens + marker.tokens);
    }
    // The trace's own `in` (the block count × 64) is the compiled input, call by call.
    expect(ct.calls.map((c) => c.inputTokens)).toEqual([...apiCalls(t)].map((p) => p.call.in));
  });

  it('renders ahead part by part, however often it is stopped, to the bytes a body renders at once', () => {
    const t = synthTrace(3, 0, 262_144);
    const compiled = compileTraces([t], { tokenizer, seed: 1 });
    const ct = compiled.traces[0] as CompiledCorpus['traces'][0];
    const long = ct.calls.find((c) => c.messages.some((m) => m.ids.length > 2 * PART_BLOCKS)) as CompiledCall;
    expect(long).toBeDefined();
    const ahead = new TraceTexts(compiled, ct);
    // Stopped after every part: a long message takes several calls, each rendering one part more.
    let calls = 0;
    while (!ahead.prerender(long, () => true)) calls++;
    const parts = long.messages.reduce((n, m) => n + Math.max(1, Math.ceil(m.ids.length / PART_BLOCKS)), 0);
    expect(calls).toBe(parts);
    const opts = { served: ['m'], marker: cacheBust(tokenizer, 'r', 0, ct.id), maxTokens: 1 };
    const fresh = new TraceTexts(compiled, ct);
    expect(Buffer.concat(ahead.body(long, opts)).equals(Buffer.concat(fresh.body(long, opts)))).toBe(true);
    // Messages of several parts, the marker's among them, frame to the payload builder's exact bytes.
    const text = Buffer.concat(fresh.body(long, opts)).toString('utf8');
    const messages = parsed(text).messages;
    const built = buildConversationPayload({ endpoint: 'chat', model: 'm', ignoreEos: true }, messages, 1);
    expect(text).toBe(built.toString('utf8'));
    // The body option replaces the recorded output length.
    expect(JSON.parse(Buffer.concat(fresh.body(long, opts)).toString()).max_completion_tokens).toBe(1);
  });
});
