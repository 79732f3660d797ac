import { defaultCacheDir, openParseCache } from '../config/cache.ts';
import { ConfigError, errorsOf, sortDiagnostics } from '../config/diagnostics.ts';
import { type LoadOptions, loadMasterConfigs, loadRunnerConfig, type MasterConfigs } from '../config/load.ts';
import type { Diagnostic } from '../schema/diagnostic.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import { MatrixError } from './errors.ts';
import { applyEvalMode, type EvalGrouping, type EvalMode } from './evals.ts';
import { filterWarnings } from './filter-warnings.ts';
import { checkFullSweepOptions } from './filters.ts';
import { type FullSweepOptions, fullSweep, type TestConfigOptions, testConfig } from './generate.ts';
import { TooManyRowsError } from './limits.ts';

/** One generator invocation end to end: flags → loaded configs → rows → eval policy (matrix-spec §5.4). */

export const DEFAULT_RUNNER_CONFIG = 'configs/runners.yaml';

export interface EvalFlags {
  noEvals?: boolean | undefined;
  evalsOnly?: boolean | undefined;
  allEvals?: boolean | undefined;
}

export function evalModeFromFlags(f: EvalFlags): EvalMode {
  if (f.noEvals && f.evalsOnly)
    throw new MatrixError('argument --evals-only: not allowed with argument --no-evals', { usage: true });
  if (f.noEvals && f.allEvals)
    throw new MatrixError('--all-evals cannot be combined with --no-evals', { usage: true });
  if (f.allEvals) return 'all-evals';
  if (f.evalsOnly) return 'evals-only';
  return f.noEvals ? 'no-evals' : 'default';
}

export interface MatrixRequest {
  configFiles: readonly string[];
  runnerConfig: string;
  /** Reuse parsed configs from earlier runs (default true; see config/cache.ts). */
  cache?: boolean | undefined;
  evalMode: EvalMode;
  evalGrouping: EvalGrouping;
  /** Told each filter value that matches nothing, with the closest existing values (for stderr). */
  warn?: ((message: string) => void) | undefined;
}

export type GeneratorRequest =
  | (MatrixRequest & { command: 'full-sweep'; options: FullSweepOptions })
  | (MatrixRequest & { command: 'test-config'; options: TestConfigOptions });

function summarize(diagnostics: Diagnostic[]): string {
  const errors = errorsOf(diagnostics);
  const keys = [...new Set(errors.map((d) => d.path[0]).filter((k): k is string => typeof k === 'string'))];
  const files = new Set(errors.map((d) => d.file)).size;
  const entries =
    keys.length > 0
      ? `${keys.length} master config ${keys.length === 1 ? 'entry' : 'entries'} failed validation (${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}); `
      : '';
  return `${entries}${errors.length} ${errors.length === 1 ? 'error' : 'errors'} in ${files} ${files === 1 ? 'file' : 'files'}`;
}

/** Loads and validates the master configs and runner config; throws ConfigError with every diagnostic. */
export async function loadInputs(
  configFiles: readonly string[],
  runnerConfig: string,
  opts: LoadOptions = {},
): Promise<{ configs: MasterConfigs; runners: RunnerConfig; warnings: Diagnostic[] }> {
  const masters = await loadMasterConfigs(configFiles, opts);
  const runners = await loadRunnerConfig(runnerConfig, opts);
  const diagnostics = sortDiagnostics([...masters.diagnostics, ...runners.diagnostics]);
  if (errorsOf(diagnostics).length > 0) throw new ConfigError(summarize(diagnostics), diagnostics);
  return { configs: masters.value, runners: runners.value, warnings: diagnostics };
}

export async function buildMatrix(
  req: GeneratorRequest,
  /** Told each config key that produced rows (before eval selection). */
  onKey?: (key: string) => void,
): Promise<MatrixRow[]> {
  // Flag errors come before any file is read, as in the reference.
  checkFullSweepOptions(req.options);
  const cache = req.cache === false ? undefined : openParseCache(defaultCacheDir());
  const { configs, runners } = await loadInputs(req.configFiles, req.runnerConfig, { cache });
  let rows: MatrixRow[];
  try {
    rows =
      req.command === 'full-sweep'
        ? fullSweep(configs, runners, req.options, onKey)
        : testConfig(configs, runners, req.options, onKey);
  } catch (err) {
    if (!(err instanceof TooManyRowsError)) throw err;
    const d = await err.diagnostic();
    throw new ConfigError(`config '${err.key}' in ${err.file}: too many matrix rows`, [d]);
  }
  if (req.warn) for (const w of filterWarnings(configs, runners, req, rows)) req.warn(w);
  return applyEvalMode(rows, req.evalMode, req.evalGrouping);
}
