import type { ConfigEntry } from '../config/load.ts';
import type { SingleNodeSearchSpace } from '../schema/master-config.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import { didYouMean } from '../schema/suggest.ts';
import { MatrixError } from './errors.ts';

/** The generator's filters: what they are, the combinations refused, and how each one keeps or drops. */

/** Which configs are kept: full-sweep's config filters, which also narrow test-config's keys in `infx sweep`. */
export interface ConfigFilters {
  modelPrefix?: readonly string[] | undefined;
  precision?: readonly string[] | undefined;
  framework?: readonly string[] | undefined;
  runnerType?: readonly string[] | undefined;
  singleNode?: boolean | undefined;
  multiNode?: boolean | undefined;
}

/**
 * What each search-space entry keeps. The reference's full-sweep has all but `conc`, its test-config only
 * `conc`; `infx sweep` gives every one to both, with the same meaning.
 */
export interface PointFilters {
  stepSize?: number | undefined;
  minConc?: number | undefined;
  maxConc?: number | undefined;
  maxTp?: number | undefined;
  maxEp?: number | undefined;
  /** Only these concurrencies, after the other concurrency filters. */
  conc?: readonly number[] | undefined;
}

/**
 * Flag combinations rejected before any file is read: the reference's two (full-sweep), and a `--conc`
 * value the concurrency bounds exclude, which no point could ever have (`infx sweep` gives both).
 */
export function checkFullSweepOptions(opts: PointFilters): void {
  if ((opts.stepSize ?? 2) <= 1) throw new MatrixError('--step-size must be greater than 1', { usage: true });
  const { minConc, maxConc } = opts;
  if (minConc !== undefined && maxConc !== undefined && minConc > maxConc) {
    throw new MatrixError('--min-conc must be less than or equal to --max-conc', { usage: true });
  }
  for (const c of opts.conc ?? []) {
    const bound =
      minConc !== undefined && c < minConc
        ? `below --min-conc ${minConc}`
        : maxConc !== undefined && c > maxConc
          ? `above --max-conc ${maxConc}`
          : null;
    if (bound)
      throw new MatrixError(
        `--conc ${c} is ${bound}, so no point can have it: drop the value or widen the bound`,
        { usage: true },
      );
  }
}

/** The reference's check of `--runner-type` against the runner config's labels (and a did-you-mean). */
export function checkRunnerTypes(opts: ConfigFilters, runners: RunnerConfig): void {
  if (!opts.runnerType) return;
  const invalid = [...new Set(opts.runnerType.filter((r) => !(r in runners.labels)))];
  if (invalid.length === 0) return;
  const labels = Object.keys(runners.labels);
  const hints = invalid
    .map((r) => didYouMean(r, labels))
    .map((hint, i) => (hint ? `\n'${invalid[i]}':${hint.slice(1)}` : ''))
    .join('');
  throw new MatrixError(
    `Invalid runner type(s): {${invalid.map((r) => `'${r}'`).join(', ')}}. Valid runner types are: ${labels.sort().join(', ')}${hints}`,
  );
}

/** Whether a config passes the config filters (full-sweep's order and meaning). */
export function configKept(ce: ConfigEntry, opts: ConfigFilters): boolean {
  const c = ce.entry;
  if (opts.modelPrefix && !opts.modelPrefix.some((p) => ce.key.startsWith(p))) return false;
  if (opts.precision && !opts.precision.includes(c.precision)) return false;
  if (opts.framework && !opts.framework.includes(c.framework)) return false;
  if (opts.runnerType && !opts.runnerType.includes(c.runner)) return false;
  const bothNodeTypes = !opts.singleNode && !opts.multiNode;
  return bothNodeTypes || Boolean(c.multinode ? opts.multiNode : opts.singleNode);
}

/** `--conc`: the expanded values it names, in config order; nothing left drops the entry. */
export function onlyConcs(
  values: number[] | undefined,
  conc: readonly number[] | undefined,
): number[] | undefined {
  if (!values || !conc) return values;
  const wanted = new Set(conc);
  const kept = values.filter((c) => wanted.has(c));
  return kept.length > 0 ? kept : undefined;
}

/**
 * The single-node fixed-seq-len entry's ep after `--max-tp` (drop) and `--max-ep` (clamp), or undefined
 * when the entry is dropped.
 */
export function singleNodeEp(e: SingleNodeSearchSpace, opts: PointFilters): number | undefined {
  if (opts.maxTp !== undefined && (opts.maxTp <= 0 || e.tp > opts.maxTp)) return undefined;
  let ep = e.ep ?? 1;
  if (opts.maxEp !== undefined) {
    if (opts.maxEp <= 0) return undefined;
    if (e.ep != null && e.ep > opts.maxEp) ep = opts.maxEp;
  }
  return ep;
}
