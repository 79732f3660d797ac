import { disaggRow, type HandSetConfig, handSetConfigs } from '../analysis-helpers.ts';
import { syntheticRow } from './synthetic.ts';

/**
 * The frontier comparison's fixture, built like user thread 000: a baseline ("published") of TP8 and TP4
 * aggregate configs and a run ("pr") of a P4/3D4 disaggregated config, a new TP8 aggregate point set and a
 * TP8 config on other hardware. Every expected number is worked by hand in test/compare-frontier.test.ts;
 * test/web-compare-frontier.e2e.test.ts shows the same in the dashboard.
 */

const TP8 = syntheticRow();
const TP4 = syntheticRow({ tp: 4 });
const DISAGG = disaggRow(1, 3);
const B200 = syntheticRow({ runner: 'b200-nv_0' });

export const BASELINE: readonly HandSetConfig[] = [
  { row: TP8, metrics: { 64: [20, 3000], 32: [40, 2400], 16: [50, 1500] } },
  { row: TP4, metrics: { 64: [30, 2000], 16: [60, 1600], 4: [80, 1000] } },
];

export const RUN: readonly HandSetConfig[] = [
  { row: DISAGG, metrics: { 64: [50, 2760], 32: [70, 2242.1875], 8: [100, 900] } },
  { row: TP8, metrics: { 128: [10, 2895], 64: [25, 2800], 32: [40, 2300] } },
  { row: B200, metrics: { 4: [50, 1000] } },
];

export const L = {
  disagg: 'dsr1 1k/1k h200 sglang fp8 1×tp4+3×tp4 disagg',
  tp8: 'dsr1 1k/1k h200 sglang fp8 tp8',
  tp4: 'dsr1 1k/1k h200 sglang fp8 tp4',
  b200: 'dsr1 1k/1k b200 sglang fp8 tp8',
};

/** The baseline run directory ("published": TP8 and TP4 aggregate). */
export const publishedRun = (runId = 'published', opts: { engine?: 'simulated' | 'real' } = {}) =>
  handSetConfigs(runId, BASELINE, undefined, opts);

/** The run directory compared ("pr": P4/3D4 disagg, TP8 new, TP8 on B200), or some of its configs. */
export const prRun = (runId = 'pr', opts: { engine?: 'simulated' | 'real'; configs?: number } = {}) =>
  handSetConfigs(runId, RUN.slice(0, opts.configs ?? RUN.length), '2026-02-01T00:00:00.000Z', opts);
