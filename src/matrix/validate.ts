import { existsSync } from 'node:fs';
import { errorsOf, sortDiagnostics } from '../config/diagnostics.ts';
import { lintConfigs } from '../config/lint.ts';
import { loadMasterConfigs, loadRunnerConfig } from '../config/load.ts';
import type { Diagnostic } from '../schema/diagnostic.ts';
import { DEFAULT_RUNNER_CONFIG } from './build.ts';
import { TooManyRowsError } from './limits.ts';
import { type MatrixSummary, summarizeConfigs } from './summary.ts';

/** `infx validate`: every problem of every file in one run, and, when valid, what the configs expand to. */

export interface ValidationReport {
  /** The runner config that was checked: the one given, else the default when it exists. */
  runnerConfig: string | undefined;
  /** Errors, then (only when there are none) warnings, in reading order. */
  diagnostics: Diagnostic[];
  errors: number;
  summary: MatrixSummary | undefined;
}

export async function validateConfigs(
  configFiles: readonly string[],
  runnerConfig?: string,
): Promise<ValidationReport> {
  const runnerFile = runnerConfig ?? (existsSync(DEFAULT_RUNNER_CONFIG) ? DEFAULT_RUNNER_CONFIG : undefined);
  const masters = await loadMasterConfigs(configFiles, { keepTexts: true });
  const runners = runnerFile ? await loadRunnerConfig(runnerFile) : undefined;
  const found = [...masters.diagnostics, ...(runners?.diagnostics ?? [])];
  const errors = errorsOf(found).length;
  if (errors > 0)
    return { runnerConfig: runnerFile, diagnostics: sortDiagnostics(found), errors, summary: undefined };
  let summary: MatrixSummary;
  try {
    summary = summarizeConfigs(masters.value, runners?.value ?? { labels: {}, hardware: {} });
  } catch (err) {
    if (!(err instanceof TooManyRowsError)) throw err;
    const diagnostics = sortDiagnostics([...found, await err.diagnostic()]);
    return { runnerConfig: runnerFile, diagnostics, errors: 1, summary: undefined };
  }
  return {
    runnerConfig: runnerFile,
    diagnostics: sortDiagnostics([...found, ...lintConfigs(masters.value, runners?.value)]),
    errors,
    summary,
  };
}
