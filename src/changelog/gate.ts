import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { loadInputs } from '../matrix/build.ts';
import { compactJson } from '../matrix/json.ts';
import type { ChangelogEntry } from '../schema/changelog-entry.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import { checkAppendOnlyScope } from './append-scope.ts';
import { addedEntries } from './diff-additions.ts';
import { ChangelogError } from './errors.ts';
import { diffOfFile, fileAtRevision, resolveRevision } from './git.ts';
import { resolveChangelogKeys } from './keys.ts';
import { processorRow } from './output-rows.ts';
import { type ChangelogRun, processChangelogEntries } from './process.ts';

/**
 * `infx changelog matrix`: the reference processor (`utils/process_changelog.py`, changelog-pr-spec
 * §2) run in a work tree at the head revision. The entries come from the diff base..head of the
 * changelog; the configs and runners are the work tree's files; an append-only run also reads them at
 * the base revision. Output: one compact JSON object, byte for byte the reference's.
 */

export interface ChangelogMatrixRequest {
  /** The work tree (its files are the head's inputs). */
  cwd: string;
  baseRef: string;
  headRef: string;
  changelogFile: string;
  configFiles: readonly string[];
  runnerConfig: string;
  trimConc?: boolean | undefined;
  allEvals?: boolean | undefined;
  evalsOnly?: boolean | undefined;
}

export interface ChangelogMatrixOutput extends Omit<ChangelogRun, 'changelog_metadata'> {
  changelog_metadata: { base_ref: string; head_ref: string; entries: ChangelogEntry[] };
}

/** A path as git names it relative to `cwd` (`./x`), refused when it leaves the work tree. */
export function treePath(cwd: string, path: string, flag: string): string {
  const rel = relative(cwd, resolve(cwd, path));
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new ChangelogError(`${flag} '${path}' is outside the work tree ${cwd}: give a path inside it`);
  return rel;
}

/** The head's inputs at the base revision, written under a temporary folder; the missing ones named. */
export function baseInputs(
  cwd: string,
  base: string,
  files: readonly string[],
): { dir: string; missing: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'infx-changelog-base-'));
  const missing: string[] = [];
  for (const f of files) {
    const bytes = fileAtRevision(cwd, base, `./${f}`);
    if (bytes === null) missing.push(f);
    else {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      writeFileSync(join(dir, f), bytes);
    }
  }
  return { dir, missing };
}

export async function changelogMatrix(req: ChangelogMatrixRequest): Promise<ChangelogMatrixOutput> {
  const base = resolveRevision(req.cwd, req.baseRef, '--base-ref');
  const head = resolveRevision(req.cwd, req.headRef, '--head-ref');
  const file = treePath(req.cwd, req.changelogFile, '--changelog-file');
  const entries = addedEntries(diffOfFile(req.cwd, base, head, `./${file}`), req.changelogFile);
  const configFiles = req.configFiles.map((f) => treePath(req.cwd, f, '--config-files'));
  const runnerConfig = treePath(req.cwd, req.runnerConfig, '--runner-config');
  const inputs = await loadInputs(
    configFiles.map((f) => join(req.cwd, f)),
    join(req.cwd, runnerConfig),
  );
  const opts = { trimConc: req.trimConc, allEvals: req.allEvals, evalsOnly: req.evalsOnly };
  let run: ChangelogRun;
  if (entries.some((e) => e['append-only'])) {
    const { dir, missing } = baseInputs(req.cwd, base, [...configFiles, runnerConfig]);
    try {
      if (missing.length > 0)
        throw new ChangelogError(
          `append-only base revision is missing generation inputs: [${missing.map((f) => `'${f}'`).join(', ')}]`,
        );
      const before = await loadInputs(
        configFiles.map((f) => join(dir, f)),
        join(dir, runnerConfig),
      );
      const available = inputs.configs.entries.map((e) => e.key);
      const selected = [
        ...new Set(entries.flatMap((e) => resolveChangelogKeys(e['config-keys'], available))),
      ];
      const absent = selected.filter((k) => !before.configs.byKey.has(k));
      if (absent.length > 0)
        throw new ChangelogError(
          `append-only requires every selected config to exist in the base revision; missing: [${absent.map((k) => `'${k}'`).join(', ')}]`,
        );
      checkAppendOnlyScope(entries, before.configs, inputs.configs);
      run = processChangelogEntries(entries, inputs.configs, inputs.runners, {
        ...opts,
        base: { configs: before.configs, runners: before.runners },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else run = processChangelogEntries(entries, inputs.configs, inputs.runners, opts);
  const rows = (list: MatrixRow[]) => list.map(processorRow);
  const seqs = (m: Record<string, MatrixRow[]>) =>
    Object.fromEntries(Object.entries(m).map(([seq, list]) => [seq, rows(list)]));
  return {
    single_node: seqs(run.single_node),
    multi_node: seqs(run.multi_node),
    evals: rows(run.evals),
    agentic_evals: rows(run.agentic_evals),
    multinode_evals: rows(run.multinode_evals),
    multinode_agentic_evals: rows(run.multinode_agentic_evals),
    changelog_metadata: { base_ref: req.baseRef, head_ref: req.headRef, entries },
  };
}

/** The processor's stdout: compact JSON, keys in the reference's order, and a newline. */
export function formatChangelogMatrix(out: ChangelogMatrixOutput): string {
  return `${compactJson(out)}\n`;
}
