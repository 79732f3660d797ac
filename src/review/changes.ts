import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { baseInputs, treePath } from '../changelog/gate.ts';
import { changedPaths, resolveRevision } from '../changelog/git.ts';
import { loadMasterConfigs, type MasterConfigs } from '../config/load.ts';
import { loadInputs } from '../matrix/build.ts';
import type { RunnerConfig } from '../schema/runners.ts';

/** What a change base..head does to the benchmark inputs: files touched, config entries changed. */

export interface ChangeRequest {
  cwd: string;
  baseRef: string;
  headRef: string;
  configFiles: readonly string[];
  runnerConfig: string;
}

export interface Change {
  /** The base and head commits. */
  base: string;
  head: string;
  files: string[];
  /** The work tree's inputs, relative to it. */
  configFiles: string[];
  runnerConfig: string;
  configs: MasterConfigs;
  /** The base's entries of the same config files (null when none of them exists at the base). */
  baseConfigs: MasterConfigs | null;
  runners: RunnerConfig;
  /** Keys whose entry differs base → head, or that the head adds, in head order. */
  changedKeys: string[];
}

export async function readChange(req: ChangeRequest): Promise<Change> {
  const base = resolveRevision(req.cwd, req.baseRef, '--base-ref');
  const head = resolveRevision(req.cwd, req.headRef, '--head-ref');
  const configFiles = req.configFiles.map((f) => treePath(req.cwd, f, '--config-files'));
  const runnerConfig = treePath(req.cwd, req.runnerConfig, '--runner-config');
  const files = changedPaths(req.cwd, base, head);
  const now = await loadInputs(
    configFiles.map((f) => join(req.cwd, f)),
    join(req.cwd, runnerConfig),
    { keepTexts: true },
  );
  const { dir, missing } = baseInputs(req.cwd, base, configFiles);
  let before: MasterConfigs | null = null;
  try {
    const present = configFiles.filter((f) => !missing.includes(f));
    // However the base validates: a base that failed its own checks still has entries to compare.
    if (present.length > 0) before = (await loadMasterConfigs(present.map((f) => join(dir, f)))).value;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const changedKeys = now.configs.entries
    .filter((e) => !isDeepStrictEqual(before?.byKey.get(e.key)?.entry, e.entry))
    .map((e) => e.key);
  return {
    base,
    head,
    files,
    configFiles,
    runnerConfig,
    configs: now.configs,
    baseConfigs: before,
    runners: now.runners,
    changedKeys,
  };
}
