/**
 * Interprets the data events of an OpenAI-compatible stream (completions or chat) as tokens, usage and
 * finish. Timestamps are passed in by the caller, taken when the socket read that carried the events
 * completed, so JSON parsing never moves them.
 *
 * Deliberate differences from the reference client (client-metrics-spec §3.1, §11):
 * - chat: a role-only or empty delta is not a token, so TTFT is the first chunk carrying text on any
 *   channel (content, reasoning, tool call), not the first chunk with choices;
 * - both endpoints: the last token is the last token-carrying chunk; a usage-only chunk never extends E2EL.
 */

import { StreamText } from './stream-text.ts';

export type Endpoint = 'chat' | 'completions';

export interface StreamState {
  firstTokenMs: number | null;
  lastTokenMs: number | null;
  chunkGapsMs: number[];
  contentChunks: number;
  reasoningChunks: number;
  /** What the usage chunks said, unchecked (usage-check.ts judges it); null when none came. */
  usage: UsageSeen | null;
  finished: boolean;
  done: boolean;
  /** Generated text (all channels), for the client-side token count. */
  text: StreamText;
  /** Characters in `text`. */
  textChars: number;
  /** An error object sent inside the stream, or a payload that was not JSON. */
  streamError: { kind: 'server' | 'malformed'; message: string } | null;
  /** The simulated engine's own stamps (schema/sim-protocol.ts), when it sends them. */
  engine: EngineClockState | null;
}

/**
 * The usage objects of one stream: each field as the first chunk that carried it sent it (any JSON
 * value: a lying server may send -100, 2.5 or "12"), and the first later value that differed from it.
 */
export interface UsageSeen {
  chunks: number;
  prompt: unknown;
  completion: unknown;
  promptConflict: { value: unknown } | null;
  completionConflict: { value: unknown } | null;
}

export interface EngineClockState {
  arrivalMs: number | null;
  scheduledMs: number | null;
  firstTokenMs: number | null;
  lastTokenMs: number | null;
  chunkGapsMs: number[];
}

export function newStreamState(): StreamState {
  return {
    firstTokenMs: null,
    lastTokenMs: null,
    chunkGapsMs: [],
    contentChunks: 0,
    reasoningChunks: 0,
    usage: null,
    finished: false,
    done: false,
    text: new StreamText(),
    textChars: 0,
    streamError: null,
    engine: null,
  };
}

/** Reads the `infx` stamp of a chunk; returns its token time, if any. */
function engineStamp(state: StreamState, stamp: unknown): number | null {
  if (stamp === null || typeof stamp !== 'object') return null;
  const s = stamp as Json;
  state.engine ??= {
    arrivalMs: null,
    scheduledMs: null,
    firstTokenMs: null,
    lastTokenMs: null,
    chunkGapsMs: [],
  };
  if (typeof s.arrival === 'number' && Number.isFinite(s.arrival)) state.engine.arrivalMs = s.arrival;
  if (typeof s.scheduled === 'number' && Number.isFinite(s.scheduled)) state.engine.scheduledMs = s.scheduled;
  return typeof s.t === 'number' && Number.isFinite(s.t) ? s.t : null;
}

type Json = Record<string, unknown>;

/** Applies one `data:` payload received at time `t`. Returns false once the stream must stop being read. */
export function applyEvent(state: StreamState, endpoint: Endpoint, payload: string, t: number): boolean {
  if (payload === '[DONE]') {
    state.done = true;
    return false;
  }
  let event: Json;
  try {
    event = JSON.parse(payload) as Json;
  } catch {
    state.streamError = { kind: 'malformed', message: `not JSON: ${payload.slice(0, 120)}` };
    return false;
  }
  if (event === null || typeof event !== 'object') {
    state.streamError = { kind: 'malformed', message: `not a JSON object: ${payload.slice(0, 120)}` };
    return false;
  }
  if (event.error) {
    const err = event.error as Json;
    const message = typeof err === 'object' && typeof err.message === 'string' ? err.message : payload;
    state.streamError = { kind: 'server', message: message.slice(0, 500) };
    return false;
  }
  const engineT = event.infx === undefined ? null : engineStamp(state, event.infx);
  const usage = event.usage as Json | null | undefined;
  if (usage && typeof usage === 'object') noteUsage(state, usage);
  const choices = event.choices;
  if (!Array.isArray(choices) || choices.length === 0) return true;
  const choice = choices[0] as Json;
  if (choice.finish_reason) state.finished = true;
  const channel = endpoint === 'completions' ? completionToken(choice, state) : chatToken(choice, state);
  if (channel === null) return true;
  if (channel === 'content') state.contentChunks++;
  else state.reasoningChunks++;
  if (state.firstTokenMs === null) state.firstTokenMs = t;
  else state.chunkGapsMs.push(t - (state.lastTokenMs as number));
  state.lastTokenMs = t;
  const e = state.engine;
  if (e !== null && engineT !== null) {
    if (e.firstTokenMs === null) e.firstTokenMs = engineT;
    else e.chunkGapsMs.push(engineT - (e.lastTokenMs as number));
    e.lastTokenMs = engineT;
  }
  return true;
}

function noteUsage(state: StreamState, usage: Json): void {
  state.usage ??= {
    chunks: 0,
    prompt: null,
    completion: null,
    promptConflict: null,
    completionConflict: null,
  };
  const seen = state.usage;
  seen.chunks++;
  const prompt = usage.prompt_tokens ?? null;
  if (prompt !== null) {
    if (seen.prompt === null) seen.prompt = prompt;
    else if (seen.promptConflict === null && !Object.is(seen.prompt, prompt))
      seen.promptConflict = { value: prompt };
  }
  const completion = usage.completion_tokens ?? null;
  if (completion !== null) {
    if (seen.completion === null) seen.completion = completion;
    else if (seen.completionConflict === null && !Object.is(seen.completion, completion))
      seen.completionConflict = { value: completion };
  }
}

// A completions chunk with a choice is one generated step even when its text is empty (a special token).
function completionToken(choice: Json, state: StreamState): 'content' | null {
  if (typeof choice.text === 'string' && choice.text.length > 0) {
    state.text.append(choice.text);
    state.textChars += choice.text.length;
  } else if (choice.finish_reason && choice.text === '') return null;
  return 'content';
}

function chatToken(choice: Json, state: StreamState): 'content' | 'reasoning' | null {
  const delta = choice.delta as Json | undefined;
  if (!delta || typeof delta !== 'object') return null;
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  if (typeof reasoning === 'string' && reasoning.length > 0) {
    state.text.append(reasoning);
    state.textChars += reasoning.length;
    return 'reasoning';
  }
  if (typeof delta.content === 'string' && delta.content.length > 0) {
    state.text.append(delta.content);
    state.textChars += delta.content.length;
    return 'content';
  }
  if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) return 'content';
  return null;
}
