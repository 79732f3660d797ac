import { basename, resolve } from 'node:path';
import { isAgentic, type MatrixRow } from '../schema/matrix-row.ts';
import type { TraceCorpus } from '../schema/workload.ts';
import { hashFile } from '../workload/agentic/compile-hash.ts';
import { TraceCorpusError } from '../workload/agentic/errors.ts';
import { corpusForModelPrefix, findPublicCorpus } from '../workload/agentic/hf-corpus.ts';
import type { AgenticPlanDefaults } from './points.ts';
import { SweepPlanError } from './points.ts';

/**
 * The corpus a sweep's agentic rows replay: `--traces FILE…` for every row, else each row's public corpus
 * by model prefix from the local Hugging Face cache (hf-corpus.ts: the 1M one for 1M-context prefixes,
 * the 256k one otherwise; never downloaded). Each file is planned by absolute path and SHA-256, so a
 * point measures exactly the bytes planned (point-bench.ts checks them again before it runs), wherever
 * the point runs from.
 */

/** A file's SHA-256, streamed (a public corpus is large). */
export const sha256File = async (path: string): Promise<string> => (await hashFile(path)).sha256;

async function hashed(
  files: readonly string[],
  what: (file: string) => string,
): Promise<TraceCorpus['files']> {
  const out: TraceCorpus['files'] = [];
  for (const file of files) {
    const path = resolve(file);
    const sha256 = await sha256File(path).catch((err: Error) => {
      throw new SweepPlanError(`${what(file)}: ${err.message}`);
    });
    out.push({ path, sha256 });
  }
  return out;
}

/** The sweep's agentic settings: with files, the corpus of every row; without, `traces: null` (public by prefix). */
export async function agenticPlanDefaults(
  files: readonly string[] | undefined,
  settings: Omit<AgenticPlanDefaults, 'traces' | 'publicCorpora'>,
): Promise<AgenticPlanDefaults> {
  if (files === undefined || files.length === 0) return { traces: null, ...settings };
  const name = basename(files[0] as string).replace(/\.jsonl$/, '');
  return { traces: { name, files: await hashed(files, (f) => `--traces ${f}`) }, ...settings };
}

/**
 * The public corpus of each model prefix among the agentic `rows`, hashed once per corpus, or why a row
 * cannot have one (the cache lacks it: the reason says where it looked and how to get a copy). Unchanged
 * with `--traces` or without agentic settings.
 */
export async function withPublicCorpora(
  rows: readonly MatrixRow[],
  agentic: AgenticPlanDefaults | null | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AgenticPlanDefaults | null> {
  if (!agentic || agentic.traces !== null) return agentic ?? null;
  const byDataset = new Map<string, TraceCorpus | string>();
  const publicCorpora = new Map<string, TraceCorpus | string>();
  for (const row of rows) {
    if (!isAgentic(row) || publicCorpora.has(row['model-prefix'])) continue;
    const corpus = corpusForModelPrefix(row['model-prefix']);
    let found = byDataset.get(corpus.dataset);
    if (found === undefined) {
      try {
        const files = findPublicCorpus(corpus, env);
        found = {
          name: corpus.loader,
          files: await hashed(files, (f) => `public corpus ${corpus.dataset} file ${f}`),
        };
      } catch (err) {
        if (!(err instanceof TraceCorpusError)) throw err;
        found = `${err.message}: ${err.hint ?? ''} (infx sweep --traces FILE…)`;
      }
      byDataset.set(corpus.dataset, found);
    }
    publicCorpora.set(row['model-prefix'], found);
  }
  return { ...agentic, publicCorpora };
}
