import { createHash } from 'node:crypto';

/**
 * `infx sim serve --accuracy P`: the simulated engine's answers to eval prompts it can match to a dataset
 * question. Which questions it gets right is decided per question, not per request, so a rerun with the
 * same seed gives the same answers in any order and at any concurrency:
 *
 *   d = sha256("infx-sim-eval\0<seed>\0<question>")
 *   right iff d[0..4) as a big-endian uint32 / 2^32 < P
 *
 * A wrong answer is, when d[4..8) % 4 is 0, the right number in a malformed last line (`####42`, or
 * `The answer is 42.` when d[13] is odd): strict-match misses it, flexible-extract finds it; otherwise it
 * is a wrong number in the answer format, the gold one ± (1 + d[8..12) % 9), minus when d[12] is odd.
 * The score these answers earn is simulated: it says nothing about any model.
 *
 * The gold answers come from a lookup the caller wires in (the CLI builds it from a GSM8K file with
 * src/evals), so the engine holds no dataset rules of its own. The answer is a list of text pieces, one
 * per output token, cut at the request's first stop string; the engine stops after the last piece, or
 * at max_tokens first (finish_reason length, the answer truncated).
 */

/** Finds the dataset question a prompt asks and its gold answer (the number after `#### `). */
export interface EvalAnswerTable {
  /** Questions it can answer. */
  readonly questions: number;
  /** The dataset file, for the server's log line and /v1/models. */
  readonly file: string;
  lookup(prompt: string): { question: string; answer: string } | null;
}

export interface SimEvalOptions {
  /** The fraction of questions answered right, 0 to 1 (simulated). */
  accuracy: number;
  seed: number;
  table: EvalAnswerTable;
}

export type AnswerKind = 'right' | 'wrong-number' | 'malformed';

export interface SimulatedAnswer {
  kind: AnswerKind;
  text: string;
}

const REASONING =
  'Let me work through this step by step.\n' +
  'First, I list the quantities the question gives and what it asks for.\n' +
  'Then I combine them in order and check the result.\n';

function digest(seed: number, question: string): Buffer {
  return createHash('sha256').update(`infx-sim-eval\u0000${seed}\u0000${question}`).digest();
}

/** A number that is not `gold`: gold ± delta, keeping gold's decimals; a non-number gets 0 (or 1). */
function wrongNumber(gold: string, delta: number): string {
  const plain = gold.replace(/[,$]/g, '');
  const n = Number(plain);
  if (plain === '' || !Number.isFinite(n)) return plain === '0' ? '1' : '0';
  const decimals = plain.includes('.') ? (plain.split('.')[1] as string).length : 0;
  return (n + delta).toFixed(decimals);
}

/** The answer to one question, as the rule above draws it. */
export function simulatedAnswer(
  question: string,
  gold: string,
  accuracy: number,
  seed: number,
): SimulatedAnswer {
  const d = digest(seed, question);
  if (d.readUInt32BE(0) / 2 ** 32 < accuracy) return { kind: 'right', text: `${REASONING}#### ${gold}` };
  if (d.readUInt32BE(4) % 4 === 0) {
    const last = ((d[13] as number) & 1) === 1 ? `The answer is ${gold}.` : `####${gold}`;
    return { kind: 'malformed', text: REASONING + last };
  }
  const delta = (1 + (d.readUInt32BE(8) % 9)) * (((d[12] as number) & 1) === 1 ? -1 : 1);
  return { kind: 'wrong-number', text: `${REASONING}#### ${wrongNumber(gold, delta)}` };
}

/** The request's stop strings (`stop`: a string or a list of them), empty ones dropped. */
export function stopStrings(stop: unknown): string[] {
  const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : [];
  return list.filter((s): s is string => typeof s === 'string' && s !== '');
}

/** The text up to (not including) its first stop string, as an OpenAI server returns it. */
export function cutAtStop(text: string, stops: readonly string[]): string {
  let end = text.length;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i !== -1 && i < end) end = i;
  }
  return text.slice(0, end);
}

/** One piece per output token: each word with the white space before it. */
export const piecesOf = (text: string): string[] => text.match(/\s*\S+|\s+$/g) ?? [];

/** What the server sends for a matched eval prompt: its length in tokens and the text of tokens [from, to). */
export interface EvalText {
  tokens: number;
  kind: AnswerKind;
  text(from: number, to: number, filler: (from: number, to: number) => string): string;
}

/** The answer to a prompt, or null when it asks no question the table knows (the server's filler then). */
export function evalTextFor(opts: SimEvalOptions, prompt: string, stop: unknown): EvalText | null {
  const hit = opts.table.lookup(prompt);
  if (hit === null) return null;
  const answer = simulatedAnswer(hit.question, hit.answer, opts.accuracy, opts.seed);
  const pieces = piecesOf(cutAtStop(answer.text, stopStrings(stop)));
  return {
    tokens: pieces.length,
    kind: answer.kind,
    // Past the answer (ignore_eos), the filler words go on.
    text: (from, to, filler) =>
      pieces.slice(from, to).join('') + (to > pieces.length ? filler(Math.max(from, pieces.length), to) : ''),
  };
}
