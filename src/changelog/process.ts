import type { MasterConfigs } from '../config/load.ts';
import { bucketSweep } from '../matrix/buckets.ts';
import { applyEvalMode } from '../matrix/evals.ts';
import { testConfig } from '../matrix/generate.ts';
import type { ChangelogEntry } from '../schema/changelog-entry.ts';
import { SCENARIO_TYPES, type ScenarioType } from '../schema/enums.ts';
import { isMultiNode, type MatrixRow } from '../schema/matrix-row.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import type { SweepBuckets } from '../schema/sweep-plan.ts';
import { appendOnlyDelta } from './append-only.ts';
import { ChangelogError } from './errors.ts';
import { resolveChangelogKeys } from './keys.ts';

/**
 * From the changelog entries a change adds to the rows it runs (changelog-pr-spec §2.2–§2.6): throughput
 * and eval generation per entry, de-duplicated per config and scenario, append-only deltas against the
 * base revision's matrix, trimming, fingerprints and the reference's buckets.
 */

export interface ChangelogRunOptions {
  /** PR label sweep-enabled. */
  trimConc?: boolean | undefined;
  /** PR label all-evals: expand evals for every entry, keep throughput. */
  allEvals?: boolean | undefined;
  /** PR label evals-only: suppress throughput for every entry. */
  evalsOnly?: boolean | undefined;
  /** The base revision's configs and runners; required by append-only entries. */
  base?: { configs: MasterConfigs; runners: RunnerConfig } | undefined;
}

export interface ChangelogRun extends SweepBuckets {
  changelog_metadata: { entries: ChangelogEntry[]; 'append-only'?: true };
}

/** Scenarios not yet generated for each key, grouped by that tuple (first-seen order). */
function groupUnseen(keys: string[], scope: ScenarioType[], seen: Map<string, Set<ScenarioType>>) {
  const groups = new Map<string, { scenarios: ScenarioType[]; keys: string[] }>();
  for (const key of keys) {
    const done = seen.get(key) ?? new Set<ScenarioType>();
    const scenarios = scope.filter((s) => !done.has(s));
    if (scenarios.length === 0) continue;
    for (const s of scenarios) done.add(s);
    seen.set(key, done);
    const id = scenarios.join(',');
    const g = groups.get(id) ?? { scenarios, keys: [] };
    g.keys.push(key);
    groups.set(id, g);
  }
  return [...groups.values()];
}

function checkModes(entries: readonly ChangelogEntry[], opts: ChangelogRunOptions): boolean {
  const appendOnly = entries.filter((e) => e['append-only']).length;
  if (appendOnly > 0 && appendOnly < entries.length) {
    throw new ChangelogError('append-only entries cannot share a sweep with regular changelog entries');
  }
  if (appendOnly > 0 && (opts.allEvals || opts.evalsOnly)) {
    throw new ChangelogError('append-only sweeps cannot use all-evals or evals-only modifiers');
  }
  return appendOnly > 0;
}

export function processChangelogEntries(
  entries: readonly ChangelogEntry[],
  configs: MasterConfigs,
  runners: RunnerConfig,
  opts: ChangelogRunOptions = {},
): ChangelogRun {
  const appendOnly = checkModes(entries, opts);
  const available = configs.entries.map((e) => e.key);
  const ordered = [...entries].sort((a, b) => Number(b['all-evals']) - Number(a['all-evals']));
  const seenThroughput = new Map<string, Set<ScenarioType>>();
  const seenEvals = new Map<string, Set<ScenarioType>>();
  const bench: MatrixRow[] = [];
  const evals: MatrixRow[] = [];
  const both = SCENARIO_TYPES.length;

  for (const entry of ordered) {
    const keys = resolveChangelogKeys(entry['config-keys'], available);
    const scope = SCENARIO_TYPES.filter((s) => !entry['scenario-type'] || entry['scenario-type'].includes(s));
    const expandAll = Boolean(opts.allEvals || entry['all-evals']);
    const suppressThroughput = Boolean(opts.evalsOnly || entry['evals-only'] || entry['all-evals']);
    if (!suppressThroughput) {
      for (const g of groupUnseen(keys, scope, seenThroughput)) {
        const scenarioTypes = g.scenarios.length === both ? undefined : g.scenarios;
        const head = testConfig(configs, runners, { configKeys: g.keys, scenarioTypes });
        bench.push(...(appendOnly ? appendOnlyDelta(baseRows(g.keys, scenarioTypes, opts), head) : head));
      }
    }
    if (appendOnly) continue;
    for (const g of groupUnseen(keys, scope, seenEvals)) {
      const rows = testConfig(configs, runners, { configKeys: g.keys, scenarioTypes: g.scenarios });
      const selected = applyEvalMode(rows, expandAll ? 'all-evals' : 'evals-only');
      const minEp = entry['eval-min-prefill-ep'];
      evals.push(
        ...(minEp === undefined
          ? selected
          : selected.filter((r) => {
              if (!isMultiNode(r)) return true;
              const ep = r.prefill.ep;
              return Number.isInteger(ep) && ep >= minEp;
            })),
      );
    }
  }

  return {
    ...bucketSweep(bench, evals, Boolean(opts.trimConc)),
    changelog_metadata: { entries: [...entries], ...(appendOnly ? { 'append-only': true as const } : {}) },
  };
}

function baseRows(
  keys: string[],
  scenarioTypes: ScenarioType[] | undefined,
  opts: ChangelogRunOptions,
): MatrixRow[] {
  if (!opts.base)
    throw new ChangelogError(
      'append-only entries need the base revision (its configs and runners) to compare against',
    );
  const missing = keys.filter((k) => !opts.base!.configs.byKey.has(k));
  if (missing.length > 0) {
    throw new ChangelogError(
      `append-only requires every selected config to exist in the base revision; missing: [${missing.map((k) => `'${k}'`).join(', ')}]`,
    );
  }
  return testConfig(opts.base.configs, opts.base.runners, { configKeys: keys, scenarioTypes });
}
