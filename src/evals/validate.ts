import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ValidateReport } from '../schema/evals.ts';
import { EvalInputError } from './errors.ts';
import { pyFixed } from './format.ts';
import {
  DEFAULT_MIN_SCORE,
  familyKey,
  loadThresholds,
  REFERENCE_THRESHOLDS,
  resolveThreshold,
  type Thresholds,
} from './thresholds.ts';

/**
 * `infx eval validate`: the reference's score validation (utils/evals/validate_scores.py, changelog-pr-spec
 * §9.2) as a library: thresholds with their precedence, the model prefix from the flag, meta_env.json or
 * $MODEL_PREFIX, the batched-concurrency manifest checks, then every `exact_match,` metric of every
 * `results*.json`, with the reference's log lines (PASS on stdout, FAIL and WARN on stderr).
 */

export interface ValidateOptions {
  /** Folder the results glob and the default meta_env.json are relative to. */
  dir: string;
  resultsGlob: string;
  /** meta_env.json (default `<dir>/meta_env.json`). */
  metaEnv?: string;
  modelPrefix?: string;
  /** A thresholds file; undefined for the reference's built-in thresholds. */
  thresholds?: string;
  minScore?: number;
  metricPrefix?: string;
  /** `--expected-concs`, space-separated, as the reference takes it. */
  expectedConcs?: string;
  /** `exact` reproduces the reference's exact-key lookup; `family` (default) falls back to the model family. */
  lookup?: 'family' | 'exact';
  env?: NodeJS.ProcessEnv;
}

export const CONC_SUFFIX = /_conc(\d+)(?:_\d+)?\.json$/;

function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (const ch of pattern) {
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The files a one-folder glob matches (`*` and `?`), sorted as Python sorts them. */
export function globFiles(dir: string, pattern: string): string[] {
  const folder = join(dir, dirname(pattern));
  const re = globToRegExp(basename(pattern));
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const prefix = dirname(pattern) === '.' ? '' : `${dirname(pattern)}/`;
  return names
    .filter((n) => re.test(n) && !(n.startsWith('.') && !basename(pattern).startsWith('.')))
    .map((n) => `${prefix}${n}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

type Meta = { ok: true; value: unknown } | { ok: false; error: string };

function readMeta(path: string): Meta {
  try {
    return { ok: true, value: JSON.parse(readFileSync(path, 'utf8')) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isPosInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
const sortedNums = (s: Iterable<number>) => [...s].sort((a, b) => a - b).join(', ');

/** The batched-concurrency manifest checks, each failure a message in the reference's words. */
export function manifestErrors(
  metaPath: string,
  meta: Meta,
  resultFiles: readonly string[],
  expected: number[] | null,
): string[] {
  if (!meta.ok) {
    if (expected !== null || resultFiles.some((f) => CONC_SUFFIX.test(basename(f))))
      return [`batched eval result files exist but ${metaPath} is unavailable or invalid: ${meta.error}`];
    return [];
  }
  const m = isObject(meta.value) ? meta.value : {};
  if (expected !== null && !('eval_concs' in m)) {
    if (expected.length > 1)
      return ['workflow requested multiple concurrencies but batched eval metadata is missing'];
    const errors: string[] = [];
    if (m.conc !== expected[0]) errors.push('eval metadata concurrency does not match workflow request');
    if (resultFiles.length !== 1) errors.push('eval must produce exactly one result file');
    return errors;
  }
  if (!('eval_concs' in m)) return [];
  const lists = [m.eval_concs, m.completed_eval_concs, m.failed_eval_concs];
  if (!lists.every(Array.isArray))
    return ['batched eval metadata must contain list-valued concurrency fields'];
  const [metaExpected, completed, failed] = lists as [number[], number[], number[]];
  if (!lists.every((l) => (l as unknown[]).every(isPosInt)))
    return ['batched eval metadata contains an invalid concurrency'];
  const errors: string[] = [];
  const metaSet = new Set(metaExpected);
  const expectedSet = new Set(expected !== null && expected.length > 0 ? expected : metaExpected);
  const completedSet = new Set(completed);
  const failedSet = new Set(failed);
  const same = (a: Set<number>, b: Set<number>) => a.size === b.size && [...a].every((x) => b.has(x));
  if (metaSet.size !== metaExpected.length)
    errors.push('batched eval metadata contains duplicate expected concurrencies');
  if (completedSet.size !== completed.length)
    errors.push('batched eval metadata contains duplicate completed concurrencies');
  if (expected !== null && !same(metaSet, expectedSet))
    errors.push('batched eval metadata does not match workflow concurrencies');
  if (failedSet.size > 0) errors.push(`batched eval failed for concurrency: ${sortedNums(failedSet)}`);
  if (!same(completedSet, expectedSet)) {
    const missing = [...expectedSet].filter((c) => !completedSet.has(c));
    const unexpected = [...completedSet].filter((c) => !expectedSet.has(c));
    if (missing.length > 0)
      errors.push(`batched eval is missing completed concurrency: ${sortedNums(missing)}`);
    if (unexpected.length > 0)
      errors.push(`batched eval completed unexpected concurrency: ${sortedNums(unexpected)}`);
  }
  const actual = new Set<number>();
  for (const f of resultFiles) {
    const match = CONC_SUFFIX.exec(basename(f));
    if (match === null) errors.push(`batched eval result lacks a concurrency suffix: ${f}`);
    else actual.add(Number(match[1]));
  }
  const missingResults = [...expectedSet].filter((c) => !actual.has(c));
  const unexpectedResults = [...actual].filter((c) => !expectedSet.has(c));
  if (missingResults.length > 0)
    errors.push(`batched eval is missing result files for concurrency: ${sortedNums(missingResults)}`);
  if (unexpectedResults.length > 0)
    errors.push(`batched eval has unexpected result files for concurrency: ${sortedNums(unexpectedResults)}`);
  return errors;
}

/** The model prefix: the flag, then meta_env.json's infmax_model_prefix, then $MODEL_PREFIX (never `unknown`). */
export function detectModelPrefix(
  meta: Meta,
  override: string | undefined,
  env: NodeJS.ProcessEnv,
): string | null {
  if (override) return override;
  if (meta.ok && isObject(meta.value)) {
    const p = meta.value.infmax_model_prefix;
    if (typeof p === 'string' && p !== '' && p !== 'unknown') return p;
  }
  const e = env.MODEL_PREFIX;
  return e && e !== 'unknown' ? e : null;
}

/** Parses `--expected-concs`: space-separated unique positive integers, or null when the text is not that. */
export function parseExpectedConcs(text: string): number[] | null {
  const words = text.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0 || !words.every((w) => /^[-+]?\d+$/.test(w))) return null;
  const values = words.map(Number);
  return values.every((v) => v > 0) && new Set(values).size === values.length ? values : null;
}

export function validateScores(options: ValidateOptions): ValidateReport {
  const env = options.env ?? process.env;
  const minScore = options.minScore ?? DEFAULT_MIN_SCORE;
  const metricPrefix = options.metricPrefix ?? 'exact_match,';
  const lookup = options.lookup ?? 'family';
  const lines: ValidateReport['lines'] = [];
  const out = (text: string) => lines.push({ stream: 'stdout', text });
  const err = (text: string) => lines.push({ stream: 'stderr', text });
  const report = (ok: boolean, rest: Partial<ValidateReport> = {}): ValidateReport => ({
    thresholds: options.thresholds ?? null,
    modelPrefix: null,
    lookup,
    manifestErrors: [],
    checks: [],
    lines,
    ok,
    ...rest,
  });

  let expected: number[] | null = null;
  if (options.expectedConcs !== undefined) {
    expected = parseExpectedConcs(options.expectedConcs);
    if (expected === null) {
      err('FAIL: expected concurrencies must be unique positive integers');
      return report(false);
    }
  }

  let thresholds: Thresholds = { default: {}, models: {} };
  if (options.thresholds === undefined) {
    thresholds = REFERENCE_THRESHOLDS;
    out('Loaded thresholds from <built-in: the reference utils/evals/thresholds.yaml>');
  } else {
    try {
      thresholds = loadThresholds(options.thresholds);
      out(`Loaded thresholds from ${options.thresholds}`);
    } catch (e) {
      err(`WARN: could not load thresholds from ${options.thresholds}: ${(e as Error).message}`);
    }
  }

  const metaPath = options.metaEnv ?? join(options.dir, 'meta_env.json');
  const meta = readMeta(metaPath);
  const prefix = detectModelPrefix(meta, options.modelPrefix, env);
  const family = prefix === null || lookup === 'exact' ? null : familyKey(thresholds, prefix);
  if (prefix !== null && Object.hasOwn(thresholds.models, prefix))
    out(`Model prefix: ${prefix} (per-model thresholds apply)`);
  else if (prefix !== null && family !== null)
    out(`Model prefix: ${prefix} (no per-model override; family ${family} thresholds apply)`);
  else if (prefix !== null) out(`Model prefix: ${prefix} (no per-model override; using global default)`);
  else out('Model prefix: <unknown> (using global default thresholds)');

  const files = globFiles(options.dir, options.resultsGlob);
  const manifest = manifestErrors(metaPath, meta, files, expected);
  let failed = false;
  for (const e of manifest) {
    err(`FAIL: ${e}`);
    failed = true;
  }
  if (manifest.length === 0) {
    if (!meta.ok) err(`WARN: could not inspect eval metadata for batched concurrency status: ${meta.error}`);
    else if (isObject(meta.value) && 'eval_concs' in meta.value)
      out('PASS: batched eval produced every requested concurrency');
  }

  const checks: ValidateReport['checks'] = [];
  for (const f of files) {
    const match = CONC_SUFFIX.exec(basename(f));
    const conc = match === null ? null : Number(match[1]);
    const label = conc === null ? '' : `[conc=${conc}] `;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(join(options.dir, f), 'utf8'));
    } catch (e) {
      throw new EvalInputError(
        `${join(options.dir, f)}: not a readable results JSON file: ${(e as Error).message}`,
        {
          hint: 'every file the results glob matches must be an lm-eval results.json; narrow --results-glob',
        },
      );
    }
    const results = isObject(data) && isObject(data.results) ? data.results : {};
    for (const [task, metrics] of Object.entries(results)) {
      if (!isObject(metrics)) continue;
      const t = resolveThreshold(thresholds, prefix, task, minScore, lookup);
      const via = t.rule === 'family' ? `, family of ${prefix}` : '';
      for (const [name, raw] of Object.entries(metrics)) {
        if (!name.startsWith(metricPrefix) || name.includes('stderr')) continue;
        if (typeof raw !== 'number' && typeof raw !== 'boolean') continue;
        const value = Number(raw);
        const pass = !(value < t.threshold);
        checks.push({
          file: f,
          conc,
          task,
          metric: name,
          value,
          threshold: t.threshold,
          rule: t.rule,
          source: t.source,
          pass,
        });
        if (pass)
          out(
            `PASS: ${label}${task} ${name} = ${pyFixed(value, 4)} (>= ${t.threshold} from ${t.source}${via})`,
          );
        else {
          err(
            `FAIL: ${label}${task} ${name} = ${pyFixed(value, 4)} (< ${t.threshold} from ${t.source}${via})`,
          );
          failed = true;
        }
      }
    }
  }
  if (checks.length === 0) err(`WARN: no metrics matched prefix '${metricPrefix}'`);
  return report(!failed && checks.length > 0, { modelPrefix: prefix, manifestErrors: manifest, checks });
}
