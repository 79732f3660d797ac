import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import { traceSalt } from './compile-blocks.ts';
import type { CompiledCall, CompiledMessage, CompiledTrace, MessageRecipe } from './compile-types.ts';
import { ROLES } from './compile-types.ts';
import { TraceCorpusError } from './errors.ts';
import { apiCalls } from './walk.ts';

/**
 * One trace's calls as conversations of hash-block messages (client-metrics §2.3, addendum §1.5–1.6).
 *
 * - A conversation is the main agent's calls, or one subagent's. A call continues the latest earlier call
 *   of its conversation whose hash ids it extends (a subagent's parallel inner chains each continue their
 *   own), else the previous one.
 * - Extending: the predecessor's messages, then the recorded output as an assistant turn of
 *   ceil(out / block_size) of the new blocks (the next call's ids hold the output as whole blocks; at
 *   least one new block is left), then the rest as a user turn. Message boundaries sit on block
 *   boundaries, so the input is exactly blocks × block_size tokens and shared ids give shared bytes.
 * - Not extending (compaction, context edit): a context reset. The messages lying wholly inside the
 *   common prefix are kept (their bytes stay shared), the rest of the ids form one user message; with no
 *   message kept, a fresh conversation.
 * - Fresh: a system message of the first ceil((tool_tokens + system_tokens) / block_size) blocks (at least
 *   one block is left for the user), then a user message.
 * - The preamble (a leading main-agent call with zero common prefix with every other call, and out ≤ 64
 *   or block-disjoint from them) is flagged; being disjoint it starts fresh on the main chain.
 */

export interface TraceParts {
  id: string;
  blockSize: number;
  models: string[];
  calls: CallParts[];
}

export interface CallParts {
  outer: number;
  inner: number;
  t: number;
  preamble: boolean;
  resetContext: boolean;
  modelSlot: number;
  maxTokens: number;
  /** A view of `idsOwner`'s ids when that later call extends this one; else its own array. */
  hashIds: Int32Array;
  /** The call whose ids array this call's are a prefix view of; -1: its own. */
  idsOwner: number;
  recipe: MessageRecipe;
}

const SYSTEM = 0;
const USER = 1;
const ASSISTANT = 2;

interface Span {
  role: number;
  start: number;
  end: number;
}

function extendsIds(prev: Int32Array, ids: Int32Array): boolean {
  if (prev.length > ids.length) return false;
  for (let i = 0; i < prev.length; i++) if (prev[i] !== ids[i]) return false;
  return true;
}

function commonPrefix(a: Int32Array, b: Int32Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** The call index, in `calls`, of the leading preamble, or -1. */
function findPreamble(calls: { outer: number; inner: number; ids: Int32Array; out: number }[]): number {
  const first = calls[0];
  if (first === undefined || first.inner !== -1 || calls.length < 2 || first.ids.length === 0) return -1;
  const own = new Set(first.ids);
  let disjoint = true;
  for (let c = 1; c < calls.length; c++) {
    const ids = (calls[c] as { ids: Int32Array }).ids;
    if (ids.length > 0 && ids[0] === first.ids[0]) return -1;
    if (disjoint && first.out > 64) for (const id of ids) if (own.has(id)) disjoint = false;
  }
  return first.out <= 64 || disjoint ? 0 : -1;
}

function toInt32(traceId: string, ids: readonly number[]): Int32Array {
  const out = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    if (id > 0x7fffffff)
      throw new TraceCorpusError(
        `trace ${traceId}: hash id ${id} is above 2^31 - 1`,
        'hash ids are per-trace integers (the corpus build remaps them from 0)',
      );
    out[i] = id;
  }
  return out;
}

export function compileTraceParts(trace: AgenticTrace): TraceParts {
  const bs = trace.block_size;
  const systemBlocks = Math.ceil((trace.tool_tokens + trace.system_tokens) / bs);
  const placed = [...apiCalls(trace)].map((p) => ({
    outer: p.outer,
    inner: p.inner,
    t: p.t,
    model: p.call.model ?? '',
    out: p.call.out,
    ids: toInt32(trace.id, p.call.hash_ids),
  }));
  const preamble = findPreamble(placed);

  // Models by slot: the main agent's first non-preamble call's model, then the others as they appear.
  const mainCall = placed.find((p, i) => p.inner === -1 && i !== preamble) ?? placed[0];
  const models = [mainCall?.model ?? ''];
  for (const p of placed) if (!models.includes(p.model)) models.push(p.model);

  const spans: Span[][] = [];
  const calls: CallParts[] = [];
  /** Per conversation (-1: main agent, else the subagent's outer index): its calls so far. */
  const conversations = new Map<number, number[]>();
  for (let c = 0; c < placed.length; c++) {
    const p = placed[c] as (typeof placed)[number];
    const key = p.inner === -1 ? -1 : p.outer;
    const history = conversations.get(key) ?? [];
    conversations.set(key, history);
    let base = -1;
    if (history.length > 0) {
      base = history[history.length - 1] as number;
      // Subagents may run parallel inner chains: continue the latest one this call extends.
      if (key !== -1)
        for (let h = history.length - 1; h >= 0; h--)
          if (extendsIds((placed[history[h] as number] as { ids: Int32Array }).ids, p.ids)) {
            base = history[h] as number;
            break;
          }
    }
    history.push(c);

    const n = p.ids.length;
    let keep = 0;
    let add: Span[] = [];
    let reset = false;
    const prev = base === -1 ? null : (placed[base] as (typeof placed)[number]);
    const prevSpans = base === -1 ? [] : (spans[base] as Span[]);
    if (prev !== null && extendsIds(prev.ids, p.ids)) {
      keep = prevSpans.length;
      const from = prev.ids.length;
      const fresh = n - from;
      if (fresh > 0) {
        const assistant = Math.min(Math.ceil(prev.out / bs), fresh - 1);
        if (assistant > 0) add.push({ role: ASSISTANT, start: from, end: from + assistant });
        add.push({ role: USER, start: from + assistant, end: n });
      }
    } else {
      reset = prev !== null;
      const shared = prev === null ? 0 : commonPrefix(prev.ids, p.ids);
      while (keep < prevSpans.length && (prevSpans[keep] as Span).end <= shared) keep++;
      // A reset that ends on a kept non-user message: that message is re-sent as the user's.
      let from = keep === 0 ? 0 : (prevSpans[keep - 1] as Span).end;
      if (from === n && keep > 0 && (prevSpans[keep - 1] as Span).role !== USER) {
        keep--;
        from = keep === 0 ? 0 : (prevSpans[keep - 1] as Span).end;
      }
      if (keep === 0) {
        const system = n >= 2 ? Math.min(systemBlocks, n - 1) : 0;
        if (system > 0) add.push({ role: SYSTEM, start: 0, end: system });
        if (n > system || n === 0) add.push({ role: USER, start: system, end: n });
      } else if (from < n) {
        add.push({ role: USER, start: from, end: n });
      }
    }
    if (add.length === 0 && keep === 0) add = [{ role: USER, start: 0, end: n }];
    spans[c] = [...prevSpans.slice(0, keep), ...add];
    calls.push({
      outer: p.outer,
      inner: p.inner,
      t: p.t,
      preamble: c === preamble,
      resetContext: reset,
      modelSlot: models.indexOf(p.model),
      maxTokens: p.out,
      hashIds: p.ids,
      idsOwner: -1,
      recipe: { base, keep, add: add.map((s) => [s.role, s.start, s.end]) },
    });
  }
  shareIds(calls);
  return { id: trace.id, blockSize: bs, models, calls };
}

/**
 * A conversation's calls each repeat their predecessor's ids: a call that a later one extends becomes a
 * prefix view of that one's array (the last of a run owns it), so a trace holds each run of ids once
 * instead of once per turn (the context grows to 16k blocks over hundreds of turns).
 */
export function shareIds(calls: CallParts[]): void {
  for (let c = calls.length - 1; c >= 0; c--) {
    const call = calls[c] as CallParts;
    const { base } = call.recipe;
    if (base === -1 || call.resetContext) continue;
    const prev = calls[base] as CallParts;
    if (prev.idsOwner !== -1 || prev.hashIds.length > call.hashIds.length) continue;
    const owner = call.idsOwner === -1 ? c : call.idsOwner;
    prev.idsOwner = owner;
    prev.hashIds = (calls[owner] as CallParts).hashIds.subarray(0, prev.hashIds.length);
  }
}

/** A trace's messages: each call's own (appended) ones, and its full list built down its chain of bases. */
class MessageChains {
  readonly own: CompiledMessage[][] = [];
  readonly recipes: MessageRecipe[] = [];

  of(c: number): CompiledMessage[] {
    const chain: number[] = [];
    for (let at = c; at !== -1; at = (this.recipes[at] as MessageRecipe).base) chain.push(at);
    const out: CompiledMessage[] = [];
    for (let k = chain.length - 1; k >= 0; k--) {
      const at = chain[k] as number;
      if (k < chain.length - 1) out.length = Math.min(out.length, (this.recipes[at] as MessageRecipe).keep);
      else out.length = 0;
      for (const m of this.own[at] as CompiledMessage[]) out.push(m);
    }
    return out;
  }
}

/**
 * One call of an assembled trace. A class, its getters on the prototype: a corpus holds ~100k calls for
 * the whole replay, and an object literal with getters is a dictionary of its own with two closures
 * (a third of the replay's heap, all of it marked at every full GC).
 */
class AssembledCall implements CompiledCall {
  readonly outer: number;
  readonly inner: number;
  readonly t: number;
  readonly preamble: boolean;
  readonly resetContext: boolean;
  readonly modelSlot: number;
  readonly maxTokens: number;
  readonly inputTokens: number;
  readonly hashIds: Int32Array;
  readonly recipe: MessageRecipe;
  // Private slots, not properties: a spread or a deep comparison of a call sees its fields only.
  readonly #chains: MessageChains;
  readonly #index: number;

  constructor(part: CallParts, blockSize: number, chains: MessageChains, index: number) {
    this.#chains = chains;
    this.#index = index;
    this.outer = part.outer;
    this.inner = part.inner;
    this.t = part.t;
    this.preamble = part.preamble;
    this.resetContext = part.resetContext;
    this.modelSlot = part.modelSlot;
    this.maxTokens = part.maxTokens;
    this.inputTokens = part.hashIds.length * blockSize;
    this.hashIds = part.hashIds;
    this.recipe = part.recipe;
  }

  get messages(): readonly CompiledMessage[] {
    return this.#chains.of(this.#index);
  }

  get markerMessage(): number {
    return markerIndex(this.#chains.of(this.#index));
  }
}

/**
 * The compiled trace, its message objects shared along each conversation as the recipes say. A call holds
 * only the messages it appends; its full list is built when asked for (a walk down its chain of bases),
 * so a trace costs its distinct messages, not turns × messages.
 */
export function assembleTrace(parts: TraceParts): CompiledTrace {
  const chains = new MessageChains();
  const calls: CompiledCall[] = parts.calls.map((part, c) => {
    chains.recipes.push(part.recipe);
    chains.own.push(
      part.recipe.add.map(([role, start, end]) => ({
        role: ROLES[role] ?? 'user',
        ids: part.hashIds.subarray(start, end),
      })),
    );
    return new AssembledCall(part, parts.blockSize, chains, c);
  });
  return { id: parts.id, blockSize: parts.blockSize, salt: traceSalt(parts.id), models: parts.models, calls };
}

/** The first user message (the cache-bust marker's place), else the first. */
export function markerIndex(messages: readonly CompiledMessage[]): number {
  const i = messages.findIndex((m) => m.role === 'user');
  return i === -1 ? 0 : i;
}
