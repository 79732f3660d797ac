import type { ChatMessage, EvalFilter, GsmDoc } from '../schema/evals.ts';
import { PythonRandom } from './python-random.ts';

/**
 * GSM8K as the reference's `utils/evals/gsm8k.yaml` defines it for lm-evaluation-harness (version 3.0):
 * the prompt, the few-shot examples, the generation settings, the two filters and exact_match. Every rule
 * here is lm-eval's, rewritten: see docs/evals.md for where each comes from.
 */

export const GSM8K_TASK = 'gsm8k';
export const GSM8K_VERSION = 3.0;
export const GSM8K_FEWSHOT = 5;
/** lm-eval's default few-shot seed (`fewshot_random_seed`, the fourth of `--seed 0,1234,1234,1234`). */
export const FEWSHOT_SEED = 1234;
/** The seed lm-eval's API models put in every payload. */
export const PAYLOAD_SEED = 1234;

/** `generation_kwargs.until`, in order. */
export const GSM8K_UNTIL: readonly string[] = [
  '</s>',
  '<|im_end|>',
  '<｜end▁of▁sentence｜>',
  '<｜User｜>',
  '<｜Assistant｜>',
  '\u202e',
];

/** lm-eval's FIXED fallback for a filter that matches nothing. */
export const INVALID = '[invalid]';

/** doc_to_text. */
export const docToText = (doc: GsmDoc): string =>
  `Question: ${doc.question}\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:`;

/** doc_to_target: the whole answer, its reasoning and its `#### N` line. */
export const docToTarget = (doc: GsmDoc): string => doc.answer;

/**
 * The few-shot documents of every evaluated document, in evaluation order: lm-eval's default sampler draws
 * `Random(seed).sample(train, k)` once per document, one generator for the whole run (the few-shot split,
 * train, is not the test split, so no document is excluded). Document i's examples therefore depend on the
 * draws before it: with --limit N the first N documents get exactly the examples a full run gives them.
 */
export function fewshotDocs(
  train: readonly GsmDoc[],
  count: number,
  k: number,
  seed = FEWSHOT_SEED,
): GsmDoc[][] {
  if (k === 0) return Array.from({ length: count }, () => []);
  const rnd = new PythonRandom(seed);
  const out: GsmDoc[][] = [];
  for (let i = 0; i < count; i++) out.push(rnd.sample(train, k));
  return out;
}

/**
 * The chat messages (`--apply_chat_template`, with `fewshot_as_multiturn`, which lm-eval turns on with the
 * chat template): each example a user turn (its text) and an assistant turn (its answer), then the question.
 */
export function chatMessages(doc: GsmDoc, shots: readonly GsmDoc[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const shot of shots) {
    messages.push({ role: 'user', content: docToText(shot) });
    messages.push({ role: 'assistant', content: docToTarget(shot) });
  }
  messages.push({ role: 'user', content: docToText(doc) });
  return messages;
}

/**
 * The same turns collapsed into one text (`fewshot_as_multiturn` off, or the completions endpoint without a
 * chat template): text, target delimiter " ", answer, few-shot delimiter "\n\n", and the question last.
 */
export function singleTurnText(doc: GsmDoc, shots: readonly GsmDoc[]): string {
  let text = '';
  for (const shot of shots) text += `${docToText(shot)} ${docToTarget(shot)}\n\n`;
  return text + docToText(doc);
}

const STRICT = /#### (-?[0-9.,]+)/g;
const FLEXIBLE = /(-?[$0-9.,]{2,})|(-?[0-9]+)/g;

// Python's str.strip() strips what str.isspace() calls whitespace: JS's trim() differs (it strips U+FEFF,
// and not U+001C–U+001F).
const PY_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && PY_SPACE.has(s.charCodeAt(start))) start++;
  while (end > start && PY_SPACE.has(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** The regex filter with group_select -1: the last match, its first non-empty group, stripped. */
function lastMatch(pattern: RegExp, text: string): string {
  let last: RegExpExecArray | null = null;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    last = m;
    if (m[0] === '') pattern.lastIndex++;
  }
  if (last === null) return INVALID;
  const groups = last.slice(1).filter((g): g is string => g !== undefined && g !== '');
  return groups.length === 0 ? INVALID : pyStrip(groups[0] as string);
}

/** strict-match: `#### (\-?[0-9\.\,]+)`, last match, then take_first. */
export const strictMatch = (response: string): string => lastMatch(STRICT, response);
/** flexible-extract: `(-?[$0-9.,]{2,})|(-?[0-9]+)`, last match, first non-empty group, then take_first. */
export const flexibleExtract = (response: string): string => lastMatch(FLEXIBLE, response);

export const FILTERS: Readonly<Record<EvalFilter, (response: string) => string>> = {
  'strict-match': strictMatch,
  'flexible-extract': flexibleExtract,
};

/**
 * exact_match's normalisation with the task's `regexes_to_ignore` (`,`, `\$`, `(?s).*#### `, `\.$`, each
 * removed everywhere in turn) and `ignore_case`. Python's `$` without MULTILINE also matches before a final
 * newline, so `\.$` removes a period there too.
 */
export function normalize(s: string): string {
  return s
    .replace(/,/g, '')
    .replace(/\$/g, '')
    .replace(/^[\s\S]*#### /, '')
    .replace(/\.(?=\n?$)/, '')
    .toLowerCase();
}

/** exact_match of one prediction against one target, after normalising both. */
export const exactMatch = (prediction: string, target: string): boolean =>
  normalize(prediction) === normalize(target);

/**
 * The figures lm-eval reports for a 0/1 metric: the mean and the standard error of the mean with the
 * sample standard deviation (n − 1), summed in document order as Python sums them; "N/A" for one sample.
 */
export function meanAndStderr(scores: readonly number[]): { mean: number; stderr: number | 'N/A' } {
  const n = scores.length;
  let sum = 0;
  for (const s of scores) sum += s;
  const mean = sum / n;
  if (n < 2) return { mean, stderr: 'N/A' };
  let ss = 0;
  for (const s of scores) ss += (s - mean) ** 2;
  return { mean, stderr: Math.sqrt(ss / (n - 1)) / Math.sqrt(n) };
}

/**
 * max_tokens as the reference's run_lm_eval budgets it from the eval context length: the context minus 4096
 * (half the context when it is 4096 or less), at most 16384.
 */
export function evalMaxTokens(contextLength: number): number {
  const budget = contextLength > 4096 ? contextLength - 4096 : Math.floor(contextLength / 2);
  return Math.min(budget, 16384);
}
