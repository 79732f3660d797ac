import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type * as z from 'zod';
import { type GsmDoc, GsmDocSchema } from '../schema/evals.ts';
import { EvalInputError } from './errors.ts';

/**
 * GSM8K documents from local files only, never the network: a JSONL file in the openai/gsm8k format (one
 * `{"question", "answer"}` object a line), or the local Hugging Face cache copy of `openai/gsm8k` (config
 * `main`), laid out as huggingface_hub lays out a dataset:
 * `<hub>/datasets--openai--gsm8k/snapshots/<commit>/main/<split>-00000-of-00001.parquet`, `refs/main`
 * naming the commit. The hub folder is $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub.
 */

export type Split = 'train' | 'test';

/** Reads JSONL whose every non-blank line `schema` accepts; a bad line is an error naming file:line. */
export function readJsonlFile<T>(path: string, schema: z.ZodType<T>, what: string): T[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EvalInputError(
      `cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  const out: T[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new EvalInputError(`${path}:${i + 1}: not JSON: ${(err as Error).message}`, {
        hint: `each line of ${what} must be one JSON object`,
      });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0] as z.core.$ZodIssue;
      const key = issue.path.length > 0 ? issue.path.join('.') : '(line)';
      throw new EvalInputError(`${path}:${i + 1}: ${key}: ${issue.message}`, {
        hint: `each line of ${what} must look like ${what === 'a GSM8K dataset' ? '{"question": "…", "answer": "… #### 42"}' : '{"doc_id": 0, "response": "… #### 42"}'}`,
      });
    }
    out.push(parsed.data);
  }
  return out;
}

export const readGsmJsonl = (path: string): GsmDoc[] => readJsonlFile(path, GsmDocSchema, 'a GSM8K dataset');

export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface', 'hub');
}

const list = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** The snapshot folder of openai/gsm8k in the cache: the commit refs/main names, else the newest one. */
function snapshotDir(env: NodeJS.ProcessEnv): { dir: string | null; repoDir: string } {
  const repoDir = join(hubCacheDir(env), 'datasets--openai--gsm8k');
  const snapshots = join(repoDir, 'snapshots');
  const revs = list(snapshots);
  if (revs.length === 0) return { dir: null, repoDir };
  let main: string | null = null;
  try {
    main = readFileSync(join(repoDir, 'refs', 'main'), 'utf8').trim();
  } catch {}
  if (main !== null && revs.includes(main)) return { dir: join(snapshots, main), repoDir };
  const newest = revs
    .map((r) => ({ r, t: statSync(join(snapshots, r)).mtimeMs }))
    .sort((a, b) => b.t - a.t || a.r.localeCompare(b.r))[0];
  return { dir: join(snapshots, (newest as { r: string }).r), repoDir };
}

/**
 * The documents of one split from the Hugging Face cache. JSONL files (`main/<split>*.jsonl`, e.g. written
 * there by the conversion the error names) are read; a cache holding only the Parquet files Hugging Face
 * publishes is refused with the one-line conversion, since infx carries no Parquet reader.
 */
export function readGsmFromHfCache(
  split: Split,
  env: NodeJS.ProcessEnv = process.env,
): { docs: GsmDoc[]; file: string } {
  const { dir, repoDir } = snapshotDir(env);
  if (dir === null)
    throw new EvalInputError(`openai/gsm8k is not in the local Hugging Face cache (looked in ${repoDir})`, {
      hint: 'pass --dataset FILE and --fewshot-dataset FILE (GSM8K JSONL), or set HF_HOME / HF_HUB_CACHE to the cache that has it; infx never downloads it',
    });
  const mainDir = join(dir, 'main');
  const names = list(mainDir)
    .filter((n) => n.startsWith(split))
    .sort();
  const jsonl = names.filter((n) => n.endsWith('.jsonl'));
  if (jsonl.length > 0) {
    const docs: GsmDoc[] = [];
    for (const n of jsonl) docs.push(...readGsmJsonl(join(mainDir, n)));
    return { docs, file: join(mainDir, jsonl[0] as string) };
  }
  const parquet = names.find((n) => n.endsWith('.parquet'));
  if (parquet !== undefined) {
    const from = join(mainDir, parquet);
    const to = join(mainDir, `${basename(parquet, '.parquet')}.jsonl`);
    throw new EvalInputError(
      `${from}: the cache holds GSM8K's ${split} split as Parquet, which infx does not read`,
      {
        hint: `convert it once to JSONL beside it: python3 -c "import pandas; pandas.read_parquet('${from}').to_json('${to}', orient='records', lines=True, force_ascii=False)" (or pass --dataset/--fewshot-dataset FILE)`,
      },
    );
  }
  throw new EvalInputError(`${mainDir}: no ${split} split of openai/gsm8k (main) in the cache snapshot`, {
    hint: 'pass --dataset FILE and --fewshot-dataset FILE (GSM8K JSONL)',
  });
}

export interface DatasetSource {
  /** The split to evaluate (test): a JSONL file, or null for the Hugging Face cache. */
  dataset: string | null;
  /** Where few-shot examples come from (train): a JSONL file, or null for the Hugging Face cache. */
  fewshotDataset: string | null;
}

export interface LoadedDatasets {
  test: GsmDoc[];
  train: GsmDoc[];
  testFile: string;
  trainFile: string;
}

/** The test documents and, when few-shot examples are wanted, the train documents. */
export function loadGsm8k(
  source: DatasetSource,
  fewshot: number,
  env: NodeJS.ProcessEnv = process.env,
): LoadedDatasets {
  const test =
    source.dataset === null
      ? readGsmFromHfCache('test', env)
      : { docs: readGsmJsonl(source.dataset), file: source.dataset };
  if (fewshot === 0) return { test: test.docs, train: [], testFile: test.file, trainFile: '' };
  const train =
    source.fewshotDataset === null
      ? readGsmFromHfCache('train', env)
      : { docs: readGsmJsonl(source.fewshotDataset), file: source.fewshotDataset };
  if (train.docs.length < fewshot)
    throw new EvalInputError(
      `${train.file}: ${train.docs.length} documents, fewer than --fewshot ${fewshot}`,
      {
        hint: 'give a train split with at least as many documents as few-shot examples, or lower --fewshot',
      },
    );
  return { test: test.docs, train: train.docs, testFile: test.file, trainFile: train.file };
}
