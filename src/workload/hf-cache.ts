import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Finding a model's files in the local Hugging Face cache, as huggingface_hub lays it out, without ever
 * touching the network: `<hub>/models--<org>--<name>/refs/main` holds the commit of `main`, and
 * `<hub>/models--<org>--<name>/snapshots/<commit>/` its files. The hub folder is $HF_HUB_CACHE, else
 * $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
 */

/** `org/name` (or a bare `name`): what a Hugging Face model id looks like, never a path. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;

export const looksLikeModelId = (s: string): boolean => MODEL_ID.test(s) && !s.endsWith('.json');

export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface', 'hub');
}

export interface CacheLookup {
  /** The snapshot directory holding the file, or null. */
  dir: string | null;
  /** Where it looked (for the message when nothing was found). */
  repoDir: string;
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * The snapshot of `modelId` that has `file` (default tokenizer.json): the commit `refs/main` names, else
 * the most recently modified snapshot that has it.
 */
export function findInHubCache(
  modelId: string,
  file = 'tokenizer.json',
  env: NodeJS.ProcessEnv = process.env,
): CacheLookup {
  const repoDir = join(hubCacheDir(env), `models--${modelId.split('/').join('--')}`);
  const snapshots = join(repoDir, 'snapshots');
  if (!isDir(snapshots)) return { dir: null, repoDir };
  let main: string | null = null;
  try {
    main = readFileSync(join(repoDir, 'refs', 'main'), 'utf8').trim();
  } catch {
    // No refs/main: a snapshot downloaded by revision.
  }
  if (main && /^[0-9a-f]{7,64}$/i.test(main) && isFile(join(snapshots, main, file)))
    return { dir: join(snapshots, main), repoDir };
  const candidates = readdirSync(snapshots)
    .map((name) => join(snapshots, name))
    .filter((dir) => isFile(join(dir, file)))
    .map((dir) => ({ dir, mtime: statSync(dir).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  return { dir: candidates[0]?.dir ?? null, repoDir };
}
