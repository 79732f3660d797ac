import type { ConfigEntry, MasterConfigs } from '../config/load.ts';
import type { ScenarioType, SingleNodeSearchSpace } from '../schema/master-config.ts';
import { isAgentic, isMultiNode, type MatrixRow } from '../schema/matrix-row.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import { didYouMean, nearestNumbers } from '../schema/suggest.ts';
import { type ConcSource, expandFullSweep } from './concurrency.ts';
import { configKept } from './filters.ts';
import type { FullSweepOptions, TestConfigOptions } from './generate.ts';
import { expandConfigKeys } from './keys.ts';
import { SEQ_LEN_NAMES, SEQ_LENS, type SeqLenName, seqLenName } from './naming.ts';

/**
 * Warnings for filters that select nothing, so a typo (`--precision fp88`) says so instead of quietly
 * printing fewer rows: each value that matches no config, with the closest existing values. They go to
 * stderr only; the rows are the reference's either way.
 */

export type FilterRequest =
  | { command: 'full-sweep'; options: FullSweepOptions }
  | { command: 'test-config'; options: TestConfigOptions };

const sortedUnique = (values: Iterable<string>) => [...new Set(values)].sort();

/** The did-you-mean, else the values there are (a short list), so the message always says what would match. */
function hint(value: string, existing: Iterable<string>): string {
  const all = sortedUnique(existing);
  const near = didYouMean(value, all);
  if (near) return near;
  if (all.length === 0) return '';
  return ` (the configs have ${all.slice(0, 10).join(', ')}${all.length > 10 ? ', …' : ''})`;
}

function valueWarnings(
  flag: string,
  values: readonly string[] | undefined,
  matches: (v: string) => boolean,
  existing: () => Iterable<string>,
  what = 'config',
): string[] {
  return (values ?? [])
    .filter((v) => !matches(v))
    .map((v) => `${flag} ${v} matches no ${what}${hint(v, existing())}`);
}

function searchSpaces(ce: ConfigEntry): ConcSource[] {
  const s = ce.entry.scenarios;
  return [
    ...(s['fixed-seq-len'] ?? []).flatMap((i) => i['search-space'] as ConcSource[]),
    ...(s['agentic-coding'] ?? []).flatMap((i) => i['search-space'] as ConcSource[]),
  ];
}

/** The config-level filters, each value on its own against every loaded config. */
function configFilterWarnings(configs: MasterConfigs, runners: RunnerConfig, o: FullSweepOptions): string[] {
  const entries = configs.entries;
  const field = (name: 'precision' | 'framework' | 'runner' | 'model-prefix') =>
    entries.map((e) => e.entry[name]);
  const nodes = Object.values(runners.labels).flat();
  const labels = Object.keys(runners.labels);
  return [
    ...valueWarnings(
      '--model-prefix',
      o.modelPrefix,
      (v) => entries.some((e) => e.key.startsWith(v)),
      () => [...field('model-prefix'), ...entries.map((e) => e.key)],
      'config key',
    ),
    ...valueWarnings(
      '--precision',
      o.precision,
      (v) => field('precision').includes(v),
      () => field('precision'),
    ),
    ...valueWarnings(
      '--framework',
      o.framework,
      (v) => field('framework').includes(v),
      () => field('framework'),
    ),
    // Labels unknown to the runner config are an error (the reference's); these are known but unused.
    ...valueWarnings(
      '--runner-type',
      o.runnerType?.filter((r) => r in runners.labels),
      (v) => field('runner').includes(v),
      () => field('runner'),
    ),
    ...valueWarnings(
      '--runner-node-filter',
      o.runnerNodeFilter === undefined ? undefined : [o.runnerNodeFilter],
      (v) => nodes.some((n) => n.includes(v)) || labels.some((l) => l.includes(v)),
      () => [...labels, ...nodes],
      'runner node',
    ),
    ...valueWarnings(
      '--scenario-type',
      o.scenarioTypes,
      (t) => entries.some((e) => (e.entry.scenarios[t as ScenarioType]?.length ?? 0) > 0),
      () => entries.flatMap((e) => Object.keys(e.entry.scenarios)),
    ),
    ...valueWarnings(
      '--seq-lens',
      o.seqLens,
      (n) =>
        entries.some((e) =>
          (e.entry.scenarios['fixed-seq-len'] ?? []).some(
            (i) => i.isl === SEQ_LENS[n as SeqLenName][0] && i.osl === SEQ_LENS[n as SeqLenName][1],
          ),
        ),
      () =>
        entries
          .flatMap((e) => (e.entry.scenarios['fixed-seq-len'] ?? []).map((i) => seqLenName(i.isl, i.osl)))
          .filter((n) => (SEQ_LEN_NAMES as readonly string[]).includes(n)),
    ),
  ];
}

/** Point filters, against the configs that passed the config filters. */
function pointFilterWarnings(
  selected: ConfigEntry[],
  o: FullSweepOptions,
  rows: readonly MatrixRow[],
): string[] {
  const out: string[] = [];
  if (selected.length === 0) return out;
  if (o.conc) {
    const step = o.stepSize ?? 2;
    const have = selected.flatMap((ce) => searchSpaces(ce).flatMap((e) => expandFullSweep(e, step)));
    for (const c of o.conc) {
      if (have.includes(c)) continue;
      const near = nearestNumbers(c, have);
      out.push(
        `--conc ${c} matches no concurrency of the selected configs${near.length ? `; did you mean ${near.join(' or ')}?` : ''}`,
      );
    }
  }
  const singleTps = selected
    .filter((ce) => !ce.entry.multinode)
    .flatMap((ce) =>
      (ce.entry.scenarios['fixed-seq-len'] ?? []).flatMap(
        (i) => i['search-space'] as SingleNodeSearchSpace[],
      ),
    )
    .map((e) => e.tp);
  if (o.maxTp !== undefined && singleTps.length > 0 && singleTps.every((tp) => tp > o.maxTp!))
    out.push(
      `--max-tp ${o.maxTp} drops every single-node point (the smallest tp is ${Math.min(...singleTps)})`,
    );
  // The reference applies --max-tp and --max-ep to single-node fixed-seq-len points only; say so when others remain.
  const untouched = rows.filter((r) => isMultiNode(r) || isAgentic(r)).length;
  for (const [flag, value] of [
    ['--max-tp', o.maxTp],
    ['--max-ep', o.maxEp],
  ] as const)
    if (value !== undefined && untouched > 0)
      out.push(
        `${flag} applies to single-node fixed-seq-len points only: ${untouched} multi-node or agentic row(s) are kept as they are`,
      );
  return out;
}

/**
 * A config whose runner is no label of the runner config has no nodes, so --runner-node-filter never selects
 * it, even when its runner's name contains the filter (`h200-dgxc` for `h200`): the surprising case.
 */
function unknownRunnerWarnings(pool: ConfigEntry[], runners: RunnerConfig, o: FullSweepOptions): string[] {
  const filter = o.runnerNodeFilter;
  if (filter === undefined) return [];
  const labels = Object.keys(runners.labels);
  return pool
    .filter(
      (ce) => configKept(ce, o) && !(ce.entry.runner in runners.labels) && ce.entry.runner.includes(filter),
    )
    .map(
      (ce) =>
        `config '${ce.key}': runner '${ce.entry.runner}' is not a label of the runner config, so --runner-node-filter ${filter} never selects it${didYouMean(ce.entry.runner, labels)}`,
    );
}

export function filterWarnings(
  configs: MasterConfigs,
  runners: RunnerConfig,
  req: FilterRequest,
  rows: readonly MatrixRow[],
): string[] {
  const o = req.options;
  const pool =
    req.command === 'test-config'
      ? expandConfigKeys(
          req.options.configKeys,
          configs.entries.map((e) => e.key),
        ).map((k) => configs.byKey.get(k)!)
      : configs.entries;
  const selected = pool.filter((ce) => configKept(ce, o));
  const warnings = [
    ...configFilterWarnings(configs, runners, o),
    ...unknownRunnerWarnings(pool, runners, o),
    ...pointFilterWarnings(selected, o, rows),
  ];
  if (rows.length === 0 && warnings.length === 0 && selected.length === 0 && pool.length > 0)
    warnings.push(
      req.command === 'test-config'
        ? 'the --config-keys configs all fail the other config filters (--model-prefix, --precision, --framework, --runner-type, --single-node/--multi-node): no rows'
        : 'no config passes all the filters together: no rows; loosen one',
    );
  else if (rows.length === 0 && warnings.length === 0 && selected.length > 0)
    warnings.push(
      'the selected configs have no point that passes all the filters together: no rows; loosen one',
    );
  return warnings;
}
