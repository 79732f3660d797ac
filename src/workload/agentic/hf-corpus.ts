import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hubCacheDir } from '../hf-cache.ts';
import { TraceCorpusError } from './errors.ts';

/**
 * The public corpora, found in a local Hugging Face cache copy and never downloaded: infx does no network
 * here. huggingface_hub lays a dataset out as `<hub>/datasets--<org>--<name>/snapshots/<commit>/…`, with
 * `refs/main` naming the commit of `main`; the hub folder is resolved as for models (src/workload/hf-cache.ts).
 */

export interface PublicCorpus {
  /** The reference's loader name (`--public-dataset`). */
  loader: string;
  /** The Hugging Face dataset. */
  dataset: string;
}

export const CORPUS_1M: PublicCorpus = {
  loader: 'semianalysis_cc_traces_weka_062126',
  dataset: 'semianalysisai/cc-traces-weka-062126',
};
export const CORPUS_256K: PublicCorpus = {
  loader: 'semianalysis_cc_traces_weka_062126_256k',
  dataset: 'semianalysisai/cc-traces-weka-062126-256k',
};

/** Model prefixes of the 1M-context models, which replay the full corpus (`resolve_trace_source`, §2.2). */
export const ONE_MILLION_PREFIXES = ['dsv4', 'glm5.2', 'minimaxm3', 'kimik3'] as const;

/** The corpus the reference replays for a model prefix: the 1M one for 1M-context models, else the 256k one. */
export function corpusForModelPrefix(modelPrefix: string): PublicCorpus {
  return ONE_MILLION_PREFIXES.some((p) => modelPrefix.startsWith(p)) ? CORPUS_1M : CORPUS_256K;
}

const stat = (p: string) => {
  try {
    return statSync(p);
  } catch {
    return null;
  }
};

/** The `traces.jsonl` files under a snapshot (the file may sit in a subfolder such as `data/`), sorted. */
function tracesFiles(dir: string, depth = 3): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    const s = stat(path);
    if (s?.isFile() && name === 'traces.jsonl') out.push(path);
    else if (s?.isDirectory() && depth > 0 && !name.startsWith('.'))
      out.push(...tracesFiles(path, depth - 1));
  }
  return out;
}

/**
 * The trace files of `corpus` in the local cache: the snapshot `refs/main` names, else the most recently
 * modified snapshot that has them. Absent: an error that says where it looked and how to get a copy.
 */
export function findPublicCorpus(corpus: PublicCorpus, env: NodeJS.ProcessEnv = process.env): string[] {
  const repoDir = join(hubCacheDir(env), `datasets--${corpus.dataset.split('/').join('--')}`);
  const snapshots = join(repoDir, 'snapshots');
  let main: string | null = null;
  try {
    main = readFileSync(join(repoDir, 'refs', 'main'), 'utf8').trim();
  } catch {
    // No refs/main: a snapshot downloaded by revision.
  }
  if (main && /^[0-9a-f]{7,64}$/i.test(main)) {
    const files = tracesFiles(join(snapshots, main));
    if (files.length > 0) return files;
  }
  let names: string[] = [];
  try {
    names = readdirSync(snapshots);
  } catch {
    // No snapshots at all.
  }
  const candidates = names
    .map((name) => join(snapshots, name))
    .map((dir) => ({ files: tracesFiles(dir), mtime: stat(dir)?.mtimeMs ?? 0 }))
    .filter((c) => c.files.length > 0)
    .sort((a, b) => b.mtime - a.mtime);
  const found = candidates[0]?.files;
  if (found) return found;
  throw new TraceCorpusError(
    `corpus ${corpus.dataset} (${corpus.loader}) is not in the local Hugging Face cache: no traces.jsonl under ${snapshots}`,
    `infx never downloads it; fetch a copy first (it is public, no token needed): ` +
      `huggingface-cli download --repo-type dataset ${corpus.dataset} (with HF_HOME or HF_HUB_CACHE set as here), ` +
      'or name the traces.jsonl files directly',
  );
}

/** The public corpus the reference replays for `modelPrefix`, and its files in the local cache. */
export function publicCorpusFiles(
  modelPrefix: string,
  env: NodeJS.ProcessEnv = process.env,
): { corpus: PublicCorpus; files: string[] } {
  const corpus = corpusForModelPrefix(modelPrefix);
  return { corpus, files: findPublicCorpus(corpus, env) };
}
