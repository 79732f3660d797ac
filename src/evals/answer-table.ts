import type { GsmDoc } from '../schema/evals.ts';
import { readGsmJsonl } from './dataset.ts';
import { EvalInputError } from './errors.ts';
import { docToText, INVALID, strictMatch } from './gsm8k.ts';

/**
 * The gold answers `infx sim serve --accuracy P --eval-dataset FILE` answers from: which GSM8K question a
 * prompt asks (the question of its last `doc_to_text`, on either endpoint, few-shot or not) and the number
 * after its answer's `#### `. The simulated engine gets only the lookup, so the task's rules stay here.
 */

export interface GsmAnswerTable {
  questions: number;
  file: string;
  lookup(prompt: string): { question: string; answer: string } | null;
}

const MARK = '\u0000';
const [PREFIX, SUFFIX] = docToText({ question: MARK, answer: '' }).split(MARK) as [string, string];

/** The table of `docs` (a question asked twice keeps its first answer; one without `#### N` is left out). */
export function gsmAnswerTable(docs: readonly GsmDoc[], file: string): GsmAnswerTable {
  const gold = new Map<string, string>();
  for (const doc of docs) {
    const answer = strictMatch(doc.answer);
    if (answer !== INVALID && !gold.has(doc.question)) gold.set(doc.question, answer);
  }
  return {
    questions: gold.size,
    file,
    lookup(prompt) {
      // The evaluated question is the last one: the prompt ends with its doc_to_text (a question may
      // itself hold "Question: ", so every start is tried, the nearest first).
      if (!prompt.endsWith(SUFFIX)) return null;
      const end = prompt.length - SUFFIX.length;
      for (let at = prompt.lastIndexOf(PREFIX, end); at !== -1; at = prompt.lastIndexOf(PREFIX, at - 1)) {
        const question = prompt.slice(at + PREFIX.length, end);
        const answer = gold.get(question);
        if (answer !== undefined) return { question, answer };
        if (at === 0) break;
      }
      return null;
    },
  };
}

export interface SimEvalFlags {
  accuracy?: number | undefined;
  evalDataset?: string | undefined;
  seed: number;
}

/** `--accuracy` and `--eval-dataset` of `infx sim serve`, checked and loaded; null when neither is given. */
export function simEvalAnswers(
  flags: SimEvalFlags,
): { accuracy: number; seed: number; table: GsmAnswerTable } | null {
  if (flags.accuracy === undefined && flags.evalDataset === undefined) return null;
  if (flags.evalDataset === undefined)
    throw new EvalInputError('--accuracy needs --eval-dataset FILE: the gold answers it answers from', {
      exitCode: 2,
      hint: 'pass --eval-dataset with the GSM8K JSONL file the eval runs on (one {"question", "answer"} a line)',
    });
  if (flags.accuracy === undefined)
    throw new EvalInputError('--eval-dataset needs --accuracy P: the simulated fraction answered right', {
      exitCode: 2,
      hint: 'pass --accuracy, e.g. --accuracy 0.95',
    });
  const table = gsmAnswerTable(readGsmJsonl(flags.evalDataset), flags.evalDataset);
  if (table.questions === 0)
    throw new EvalInputError(`${flags.evalDataset}: no question with a "#### N" answer line`, {
      hint: 'give the GSM8K JSONL file the eval runs on (answers end with "#### <number>")',
    });
  return { accuracy: flags.accuracy, seed: flags.seed, table };
}
