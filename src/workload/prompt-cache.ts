import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FixedPrompt } from './types.ts';

/**
 * An on-disk cache of built fixed-seq-len prompts. One directory per prompt set (tokenizer fingerprint,
 * seed, lengths, ratio, template mode, format version), holding chunk files of up to CHUNK prompts by
 * index: since prompt i never depends on how many prompts are asked for, a set built for 640 prompts
 * serves any smaller count and a larger one only builds the missing indices. Chunks keep every file small
 * (a few MB at ISL 8192). Cache I/O problems are never fatal: they only cost time.
 */

export const CHUNK = 64;
/** Least-recently-used prompt sets are removed once the whole cache is bigger than this. */
const MAX_BYTES = 1024 * 1024 * 1024;

/** `$INFX_CACHE_DIR/prompts`, else `$XDG_CACHE_HOME/infx/prompts`, else `~/.cache/infx/prompts`; null when INFX_NO_CACHE is set. */
export function defaultPromptCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.INFX_NO_CACHE) return null;
  const root = env.INFX_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'infx');
  return join(root, 'prompts');
}

export interface PromptCache {
  /** The cached prompts of chunk `c` (indices c·CHUNK, c·CHUNK+1, … in order); empty on a miss. */
  read(chunk: number): FixedPrompt[];
  /** Stores chunk `c`; `prompts` starts at index c·CHUNK. */
  write(chunk: number, prompts: readonly FixedPrompt[]): void;
  /** Removes old prompt sets when the cache is over its size budget (call once after writing). */
  prune(): void;
}

export function openPromptCache(root: string, key: Record<string, unknown>): PromptCache {
  const keyText = JSON.stringify(key);
  const dir = join(root, createHash('sha256').update(keyText).digest('hex').slice(0, 32));
  const fileOf = (chunk: number) => join(dir, `${chunk}.json`);
  let touched = false;
  return {
    read(chunk) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(fileOf(chunk), 'utf8'));
        const prompts = validChunk(parsed, keyText, chunk);
        if (prompts.length > 0 && !touched) {
          touched = true;
          const now = new Date();
          utimesSync(dir, now, now); // marks the set as recently used for pruning
        }
        return prompts;
      } catch {
        return [];
      }
    },
    write(chunk, prompts) {
      try {
        mkdirSync(dir, { recursive: true });
        const file = fileOf(chunk);
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify({ key: keyText, chunk, prompts }));
        renameSync(tmp, file);
      } catch {
        // A read-only or full disk only costs speed.
      }
    },
    prune() {
      try {
        pruneCache(root, dir);
      } catch {
        // Never fatal.
      }
    },
  };
}

function validChunk(parsed: unknown, keyText: string, chunk: number): FixedPrompt[] {
  if (typeof parsed !== 'object' || parsed === null) return [];
  const { key, prompts } = parsed as { key?: unknown; prompts?: unknown };
  if (key !== keyText || !Array.isArray(prompts)) return [];
  const out: FixedPrompt[] = [];
  for (const [k, p] of prompts.entries()) {
    if (!isPrompt(p) || p.index !== chunk * CHUNK + k) break;
    out.push({
      index: p.index,
      text: p.text,
      targetInputTokens: p.targetInputTokens,
      inputTokens: p.inputTokens,
      outputTokens: p.outputTokens,
    });
  }
  return out;
}

function isPrompt(p: unknown): p is FixedPrompt {
  if (typeof p !== 'object' || p === null) return false;
  const r = p as Record<string, unknown>;
  return (
    typeof r.text === 'string' &&
    Number.isSafeInteger(r.index) &&
    Number.isSafeInteger(r.targetInputTokens) &&
    Number.isSafeInteger(r.inputTokens) &&
    Number.isSafeInteger(r.outputTokens)
  );
}

function pruneCache(root: string, keep: string): void {
  const sets = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const dir = join(root, d.name);
      let bytes = 0;
      for (const f of readdirSync(dir)) bytes += statSync(join(dir, f)).size;
      return { dir, bytes, used: statSync(dir).mtimeMs };
    })
    .sort((a, b) => a.used - b.used);
  let total = sets.reduce((sum, s) => sum + s.bytes, 0);
  for (const s of sets) {
    if (total <= MAX_BYTES) break;
    if (s.dir === keep) continue;
    rmSync(s.dir, { recursive: true, force: true });
    total -= s.bytes;
  }
}
