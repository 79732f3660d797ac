import type { ConfigEntry, MasterConfigs } from '../config/load.ts';
import type {
  AgenticCodingConfig,
  AgenticSearchSpace,
  MasterEntry,
  MultiNodeSearchSpace,
  ScenarioType,
  SingleNodeSearchSpace,
  WorkerConfig,
} from '../schema/master-config.ts';
import type {
  MatrixRow,
  MultiNodeAgenticRow,
  MultiNodeFixedRow,
  RowWorker,
  SingleNodeAgenticRow,
  SingleNodeFixedRow,
} from '../schema/matrix-row.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import {
  agenticConcs,
  type ConcFilters,
  type ConcSource,
  multiNodeFixedConcs,
  singleNodeFixedConcs,
} from './concurrency.ts';
import { type DramRequest, totalCpuDramGb } from './dram.ts';
import { MatrixError } from './errors.ts';
import {
  type ConfigFilters,
  checkFullSweepOptions,
  checkRunnerTypes,
  configKept,
  onlyConcs,
  type PointFilters,
  singleNodeEp,
} from './filters.ts';
import { expandConfigKeys } from './keys.ts';
import { MAX_MATRIX_ROWS, TooManyRowsError } from './limits.ts';
import {
  maxModelLen,
  multiNodeAgenticExpName,
  SEQ_LENS,
  type SeqLenName,
  seqLenName,
  singleNodeAgenticExpName,
} from './naming.ts';
import { fullSweepRunners, testConfigRunners } from './runners.ts';

/** Expanding master configs into matrix rows, as the reference's full-sweep and test-config do (matrix-spec §5–6). */

/** Every generated agentic row asks for an hour of trace replay; only workflows override it. */
export const AGENTIC_DURATION_S = 3600;

export interface CommonOptions {
  runnerNodeFilter?: string | undefined;
  scenarioTypes?: readonly ScenarioType[] | undefined;
  seqLens?: readonly SeqLenName[] | undefined;
}

export type { ConfigFilters, PointFilters };

export interface FullSweepOptions extends CommonOptions, ConfigFilters, PointFilters {}

export interface TestConfigOptions extends CommonOptions, ConfigFilters, PointFilters {
  configKeys: readonly string[];
}

/** How one subcommand picks concurrencies and runners; the row builders are shared. */
interface Expansion {
  runners(label: string): string[];
  singleFixed(e: SingleNodeSearchSpace): { concs: number[]; ep: number } | undefined;
  multiFixed(e: MultiNodeSearchSpace): number[] | undefined;
  agentic(e: AgenticSearchSpace): number[] | undefined;
}

/** The source worker dict in its own key order, with pp/dcp-size/pcp-size filled in at the end. */
function fillWorker(w: WorkerConfig): RowWorker {
  const out = { ...w } as RowWorker;
  out.pp ??= 1;
  out['dcp-size'] ??= 1;
  out['pcp-size'] ??= 1;
  return out;
}

type Components = { router?: unknown; 'kv-p2p-transfer'?: unknown };

/**
 * Appends `router` and `kv-p2p-transfer` (in that order, after the other fields): the search-space
 * value first, else the config's top level; absent when neither sets it.
 */
function addComponents(
  row: Record<string, unknown>,
  entry: Components,
  config: Components,
  withP2p: boolean,
): void {
  const router = entry.router ?? config.router;
  if (router != null) row.router = router;
  if (!withP2p) return;
  const p2p = entry['kv-p2p-transfer'] ?? config['kv-p2p-transfer'];
  if (p2p != null) row['kv-p2p-transfer'] = p2p;
}

/** Appends the config's rows to `rows` (which may already hold other configs' rows); returns how many. */
function generateConfig(
  ce: ConfigEntry,
  runnersCfg: RunnerConfig,
  x: Expansion,
  opts: CommonOptions,
  rows: MatrixRow[],
): number {
  const c = ce.entry;
  const runners = x.runners(c.runner);
  if (runners.length === 0) return 0;
  const before = rows.length;
  const add = (row: MatrixRow) => {
    if (rows.length >= MAX_MATRIX_ROWS) throw new TooManyRowsError(ce.key, ce.file);
    rows.push(row);
  };
  const wanted = (t: ScenarioType) => !opts.scenarioTypes || opts.scenarioTypes.includes(t);
  const seqAllowed = (isl: number, osl: number) =>
    !opts.seqLens || opts.seqLens.some((n) => SEQ_LENS[n][0] === isl && SEQ_LENS[n][1] === osl);
  const prefix = c['model-prefix'];

  if (wanted('fixed-seq-len')) {
    for (const item of c.scenarios['fixed-seq-len'] ?? []) {
      const { isl, osl } = item;
      if (!seqAllowed(isl, osl)) continue;
      const expName = `${prefix}_${seqLenName(isl, osl)}`;
      const modelLen = maxModelLen(isl, osl);
      for (const raw of item['search-space']) {
        if (c.multinode) {
          const e = raw as MultiNodeSearchSpace;
          const concs = x.multiFixed(e);
          if (!concs) continue;
          for (const runner of runners) {
            const row: MultiNodeFixedRow = {
              image: c.image,
              model: c.model,
              'model-prefix': prefix,
              precision: c.precision,
              framework: c.framework,
              runner,
              isl,
              osl,
              'spec-decoding': e['spec-decoding'] ?? 'none',
              prefill: fillWorker(e.prefill),
              decode: fillWorker(e.decode),
              conc: [...concs],
              'max-model-len': modelLen,
              'exp-name': expName,
              disagg: c.disagg ?? false,
              'run-eval': false,
            };
            addComponents(row, e, c, true);
            add(row);
          }
        } else {
          const e = raw as SingleNodeSearchSpace;
          const sel = x.singleFixed(e);
          if (!sel) continue;
          for (const conc of sel.concs) {
            for (const runner of runners) {
              const row: SingleNodeFixedRow = {
                image: c.image,
                model: c.model,
                'model-prefix': prefix,
                precision: c.precision,
                framework: c.framework,
                runner,
                isl,
                osl,
                tp: e.tp,
                pp: e.pp ?? 1,
                'dcp-size': e['dcp-size'] ?? 1,
                'pcp-size': e['pcp-size'] ?? 1,
                conc,
                'max-model-len': modelLen,
                ep: sel.ep,
                'dp-attn': e['dp-attn'] ?? false,
                'spec-decoding': e['spec-decoding'] ?? 'none',
                'exp-name': expName,
                disagg: false,
                'run-eval': false,
              };
              addComponents(row, e, c, false);
              add(row);
            }
          }
        }
      }
    }
  }

  if (wanted('agentic-coding')) {
    (c.scenarios['agentic-coding'] ?? []).forEach((item, i) => {
      item['search-space'].forEach((e, j) => {
        const concs = x.agentic(e);
        if (!concs) return;
        try {
          if (c.multinode) multiNodeAgenticRows(c, runnersCfg, item, e, concs, runners, add);
          else singleNodeAgenticRows(c, runnersCfg, item, e, concs, runners, add);
        } catch (err) {
          // The DRAM budget is only checked here; say which entry of which config asked for it.
          if (!(err instanceof MatrixError) || err instanceof TooManyRowsError) throw err;
          throw new MatrixError(
            `${err.message} (config '${ce.key}' in ${ce.file}, scenarios.agentic-coding[${i}].search-space[${j}])`,
          );
        }
      });
    });
  }
  return rows.length - before;
}

/** Host DRAM for KV offload; the runner's hardware facts are only consulted when the point offloads to DRAM. */
function dramBudget(
  c: MasterEntry,
  runnersCfg: RunnerConfig,
  item: AgenticCodingConfig,
  kv: string,
  topology: Pick<DramRequest, 'tp' | 'pp' | 'pcp' | 'multiNode'>,
): number {
  if (kv !== 'dram') return 0;
  return totalCpuDramGb(runnersCfg, {
    runner: c.runner,
    utilization: item['dram-utilization']!,
    ...topology,
  });
}

function singleNodeAgenticRows(
  c: MasterEntry,
  runnersCfg: RunnerConfig,
  item: AgenticCodingConfig,
  e: AgenticSearchSpace,
  concs: number[],
  runners: string[],
  add: (row: SingleNodeAgenticRow) => void,
): void {
  const tp = e.tp!;
  const pp = e.pp ?? 1;
  const pcp = e['pcp-size'] ?? 1;
  const kv = e['kv-offloading'] ?? 'none';
  const spec = e['spec-decoding'] ?? 'none';
  const backend = e['kv-offload-backend'];
  const dram = dramBudget(c, runnersCfg, item, kv, { tp, pp, pcp, multiNode: false });
  for (const conc of concs) {
    for (const runner of runners) {
      const row: SingleNodeAgenticRow = {
        image: c.image,
        model: c.model,
        'model-prefix': c['model-prefix'],
        precision: c.precision,
        framework: c.framework,
        runner,
        tp,
        pp,
        'dcp-size': e['dcp-size'] ?? 1,
        'pcp-size': pcp,
        ep: e.ep ?? 1,
        'dp-attn': e['dp-attn'] ?? false,
        'spec-decoding': spec,
        conc,
        'kv-offloading': kv,
        'total-cpu-dram-gb': dram,
        duration: AGENTIC_DURATION_S,
        'exp-name': singleNodeAgenticExpName(c['model-prefix'], tp, conc, kv, backend, spec),
        'scenario-type': 'agentic-coding',
      };
      if (backend != null) row['kv-offload-backend'] = backend;
      addComponents(row, e, c, false);
      add(row);
    }
  }
}

function multiNodeAgenticRows(
  c: MasterEntry,
  runnersCfg: RunnerConfig,
  item: AgenticCodingConfig,
  e: AgenticSearchSpace,
  concs: number[],
  runners: string[],
  add: (row: MultiNodeAgenticRow) => void,
): void {
  const prefill = fillWorker(e.prefill!);
  const decode = fillWorker(e.decode!);
  const kv = e['kv-offloading'] ?? 'none';
  const backend = e['kv-offload-backend'];
  // Only prefill offloads KV to host DRAM; decode does not.
  const dram = dramBudget(c, runnersCfg, item, kv, {
    tp: prefill.tp,
    pp: prefill.pp,
    pcp: prefill['pcp-size'],
    multiNode: true,
  });
  for (const runner of runners) {
    // One concurrency per allocation: a multi-node agentic point holds its nodes for the whole replay.
    for (const conc of concs) {
      const row: MultiNodeAgenticRow = {
        image: c.image,
        model: c.model,
        'model-prefix': c['model-prefix'],
        precision: c.precision,
        framework: c.framework,
        runner,
        'spec-decoding': e['spec-decoding'] ?? 'none',
        prefill: { ...prefill },
        decode: { ...decode },
        conc: [conc],
        'kv-offloading': kv,
        'total-cpu-dram-gb': dram,
        duration: AGENTIC_DURATION_S,
        'exp-name': multiNodeAgenticExpName(c['model-prefix'], prefill, decode, [conc], kv, backend),
        disagg: c.disagg ?? false,
        'scenario-type': 'agentic-coding',
      };
      if (backend != null) row['kv-offload-backend'] = backend;
      addComponents(row, e, c, true);
      add(row);
    }
  }
}

/**
 * Concurrencies per row kind: full-sweep's rules (matrix-spec §3), then `--conc`. test-config differs only
 * in taking an empty `conc-list` at its word (no points) where full-sweep falls back to the range; with no
 * bounds and step 2 both are the config's list, else its range by 2 (the reference test-config).
 */
function concExpansion(
  opts: PointFilters,
  emptyListIsEmpty: boolean,
): Pick<Expansion, 'multiFixed' | 'agentic'> & {
  singleConcs(e: SingleNodeSearchSpace): number[] | undefined;
} {
  const step = opts.stepSize ?? 2;
  const filters: ConcFilters = { minConc: opts.minConc, maxConc: opts.maxConc };
  const guard =
    (expand: (e: ConcSource) => number[] | undefined) =>
    (e: ConcSource): number[] | undefined =>
      emptyListIsEmpty && e['conc-list'] != null && e['conc-list'].length === 0
        ? undefined
        : onlyConcs(expand(e), opts.conc);
  return {
    singleConcs: guard((e) => singleNodeFixedConcs(e, step, filters)),
    multiFixed: guard((e) => multiNodeFixedConcs(e, step, filters)),
    agentic: guard((e) => agenticConcs(e, step, filters)),
  };
}

function expansion(
  opts: PointFilters,
  runners: (label: string) => string[],
  emptyListIsEmpty: boolean,
): Expansion {
  const { singleConcs, ...rest } = concExpansion(opts, emptyListIsEmpty);
  return {
    runners,
    singleFixed(e) {
      const ep = singleNodeEp(e, opts);
      if (ep === undefined) return undefined;
      const concs = singleConcs(e);
      return concs ? { concs, ep } : undefined;
    },
    ...rest,
  };
}

export function fullSweep(
  configs: MasterConfigs,
  runners: RunnerConfig,
  opts: FullSweepOptions,
  onKey?: (key: string) => void,
): MatrixRow[] {
  checkFullSweepOptions(opts);
  checkRunnerTypes(opts, runners);
  const x = expansion(opts, (label) => fullSweepRunners(runners, label, opts.runnerNodeFilter), false);
  const rows: MatrixRow[] = [];
  for (const ce of configs.entries) {
    if (!configKept(ce, opts)) continue;
    if (generateConfig(ce, runners, x, opts, rows) > 0) onKey?.(ce.key);
  }
  return rows;
}

/** The configs `--config-keys` names (globs expanded, in request order) that pass the config filters. */
function testConfigKeys(configs: MasterConfigs, opts: TestConfigOptions): string[] {
  const keys = expandConfigKeys(
    opts.configKeys,
    configs.entries.map((e) => e.key),
  );
  return keys.filter((k) => configKept(configs.byKey.get(k)!, opts));
}

export function testConfig(
  configs: MasterConfigs,
  runners: RunnerConfig,
  opts: TestConfigOptions,
  onKey?: (key: string) => void,
): MatrixRow[] {
  checkFullSweepOptions(opts);
  checkRunnerTypes(opts, runners);
  const keys = testConfigKeys(configs, opts);
  const x = expansion(opts, (label) => testConfigRunners(runners, label, opts.runnerNodeFilter), true);
  const rows: MatrixRow[] = [];
  for (const k of keys) if (generateConfig(configs.byKey.get(k)!, runners, x, opts, rows) > 0) onKey?.(k);
  return rows;
}
