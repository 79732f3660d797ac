import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalResultsSchema, type EvalSampleRecord, EvalSampleRecordSchema } from '../schema/evals.ts';
import { ATTEMPT_FILES, EVAL_FILES } from '../schema/run-dir.ts';
import { attemptDir } from '../schema/run-dir-paths.ts';
import type { InputIssue } from '../schema/store.ts';
import { jsonPath, sha256 } from './run-dir-files.ts';
import type { EvalSamplesTable, PointEvalsTable } from './tables.ts';

/**
 * The files behind each stored eval verdict: `eval/results.json` (lm-eval's stderr of both filters) and
 * `eval/samples_gsm8k.jsonl` (the graded samples the dashboard drills down to), read at ingest for the
 * points whose chosen attempt ran an eval. They are few (one file pair per eval point), so they are read
 * here rather than by the run directory's reader thread. A file that cannot be used is an input issue
 * naming the file (and the line); the verdict from status.json is stored either way.
 */

export interface EvalFiles {
  /** The verdicts with stderr and the results file's hash filled in where results.json was readable. */
  evals: PointEvalsTable[];
  samples: EvalSamplesTable[];
  issues: InputIssue[];
}

/** Samples kept per eval: the whole GSM8K test set (1,319) with room to spare; more is a damaged file. */
export const MAX_SAMPLES_PER_EVAL = 20_000;

type Prompt = EvalSampleRecord['prompt'];

/** The question the model was asked: the prompt's last user turn (after the few-shot turns), or the prompt. */
export function questionOf(prompt: Prompt): string {
  if (typeof prompt === 'string') return prompt;
  for (let i = prompt.length - 1; i >= 0; i--) if (prompt[i]!.role === 'user') return prompt[i]!.content;
  return '';
}

const stderrOf = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function readEvalFiles(runDir: string, verdicts: readonly PointEvalsTable[]): EvalFiles {
  const out: EvalFiles = { evals: [], samples: [], issues: [] };
  for (const v of verdicts) {
    const dir = join(attemptDir(runDir, v.point_id, v.attempt), ATTEMPT_FILES.eval);
    const issue = (file: string, problem: string, path: string | null = null) =>
      out.issues.push({ file, jsonPath: path, pointId: v.point_id, attempt: v.attempt, problem });
    const row = { ...v };
    out.evals.push(row);

    const resultsFile = join(dir, EVAL_FILES.results);
    try {
      const text = readText(resultsFile);
      if (text === undefined)
        issue(resultsFile, 'no eval results.json: the stderr of the scores is not stored');
      else {
        const parsed = EvalResultsSchema.safeParse(JSON.parse(text));
        const task = parsed.success ? parsed.data.results[v.task] : undefined;
        if (!parsed.success) {
          const first = parsed.error.issues[0];
          issue(resultsFile, `not a valid eval results.json: ${first?.message}`, jsonPath(first?.path ?? []));
        } else if (!task) issue(resultsFile, `no results for task ${v.task}`, 'results');
        else {
          row.strict_match_stderr = stderrOf(task['exact_match_stderr,strict-match']);
          row.flexible_extract_stderr = stderrOf(task['exact_match_stderr,flexible-extract']);
          row.results_sha256 = sha256(text);
        }
      }
    } catch (err) {
      issue(resultsFile, `cannot be read: ${(err as Error).message}`);
    }

    const samplesFile = join(dir, EVAL_FILES.samples);
    let text: string | undefined;
    try {
      text = readText(samplesFile);
    } catch (err) {
      issue(samplesFile, `cannot be read: ${(err as Error).message}`);
      continue;
    }
    if (text === undefined) {
      issue(samplesFile, 'no samples file: the eval has no samples to drill down to');
      continue;
    }
    const seen = new Set<number>();
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    else if (lines.length > 0)
      issue(
        `${samplesFile}:${lines.length}`,
        'the last line has no newline (the file was cut off); it is not stored',
      );
    const whole = text.endsWith('\n') ? lines.length : lines.length - 1;
    let kept = 0;
    for (let i = 0; i < whole; i++) {
      const where = `${samplesFile}:${i + 1}`;
      let parsed: ReturnType<typeof EvalSampleRecordSchema.safeParse>;
      try {
        parsed = EvalSampleRecordSchema.safeParse(JSON.parse(lines[i]!));
      } catch (err) {
        issue(where, `not JSON: ${(err as Error).message}`);
        continue;
      }
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        issue(where, `not a graded sample: ${first?.message}`, jsonPath(first?.path ?? []));
        continue;
      }
      const s = parsed.data;
      if (seen.has(s.doc_id)) {
        issue(where, `doc_id ${s.doc_id} graded twice; the first is kept`, 'doc_id');
        continue;
      }
      if (kept === MAX_SAMPLES_PER_EVAL) {
        issue(where, `more than ${MAX_SAMPLES_PER_EVAL} samples; the rest are not stored`);
        break;
      }
      seen.add(s.doc_id);
      kept++;
      out.samples.push({
        run_id: v.run_id,
        point_id: v.point_id,
        doc_id: s.doc_id,
        status: s.status,
        question: questionOf(s.prompt),
        target: s.target,
        response: s.response,
        finish_reason: s.finish_reason,
        strict_answer: s.filtered['strict-match'],
        flexible_answer: s.filtered['flexible-extract'],
        strict_correct: s.correct['strict-match'] ? 1 : 0,
        flexible_correct: s.correct['flexible-extract'] ? 1 : 0,
        tries: s.attempts,
        error: s.error,
      });
    }
    if (kept !== v.samples)
      issue(samplesFile, `${kept} samples stored, but status.json's eval graded ${v.samples}`);
  }
  return out;
}
