import {
  CHART_STATS,
  type ChartStat,
  X_AXES,
  type XAxis,
  Y_METRICS,
  type YMetric,
} from '../../analysis/axes.ts';
import type { RunStatus } from '../../schema/store.ts';
import type { FiltersResponse } from '../../schema/web-api.ts';
import { type Params, queryString } from './api.ts';

/**
 * The inference view's whole state, kept in the URL query (dashboard-spec §4.13.3) so a reload or a shared
 * link reproduces the view. Compact: a value equal to its default is left out. The filter names are the
 * API's (/api/filters, /api/points), so the same values go to both.
 */

/** As src/schema/store.ts (not imported: that module brings zod into the page). */
const RUN_STATUSES: readonly RunStatus[] = ['official', 'unofficial', 'staged'];

export interface InferenceState {
  status?: RunStatus | undefined;
  run?: string | undefined;
  model?: string | undefined;
  isl?: number | undefined;
  osl?: number | undefined;
  precision: string[];
  hardware: string[];
  framework: string[];
  x: XAxis;
  y: YMetric;
  stat: ChartStat;
  log: boolean;
  /** Pareto-front points only ("hide non-optimal"). */
  front: boolean;
  /** $/GPU-hour for the cost metrics; null: the catalog's price of each GPU. */
  price: number | null;
  /** Hidden series: config ids (src/web/config-id.ts). */
  hide: string[];
}

export const DEFAULT_STATE: InferenceState = {
  precision: [],
  hardware: [],
  framework: [],
  x: 'interactivity',
  y: 'tput',
  stat: 'median',
  log: false,
  front: false,
  price: null,
  hide: [],
};

const list = (v: string | null) =>
  v === null
    ? []
    : [
        ...new Set(
          v
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        ),
      ];
const positive = (v: string | null) => {
  const n = Number(v);
  return v !== null && v !== '' && Number.isFinite(n) && n > 0 ? n : undefined;
};
const oneOf = <T extends string>(v: string | null, values: readonly T[], fallback: T): T =>
  values.includes(v as T) ? (v as T) : fallback;

export function parseState(search: string): InferenceState {
  const q = new URLSearchParams(search);
  const isl = positive(q.get('isl'));
  const osl = positive(q.get('osl'));
  const text = (k: string) => q.get(k) || undefined;
  return {
    status: RUN_STATUSES.includes(q.get('status') as RunStatus) ? (q.get('status') as RunStatus) : undefined,
    run: text('run'),
    model: text('model'),
    ...(isl !== undefined && osl !== undefined ? { isl, osl } : {}),
    precision: list(q.get('precision')),
    hardware: list(q.get('hardware')),
    framework: list(q.get('framework')),
    x: oneOf(q.get('x'), X_AXES, DEFAULT_STATE.x),
    y: oneOf(q.get('y'), Y_METRICS, DEFAULT_STATE.y),
    stat: oneOf(q.get('stat'), CHART_STATS, DEFAULT_STATE.stat),
    log: q.get('log') === '1',
    front: q.get('front') === '1',
    price: positive(q.get('price')) ?? null,
    hide: list(q.get('hide')),
  };
}

/** The API's filter parameters of a state. */
export function filterParams(s: InferenceState): Params {
  return {
    status: s.status,
    run: s.run,
    model: s.model,
    isl: s.isl,
    osl: s.osl,
    precision: s.precision,
    hardware: s.hardware,
    framework: s.framework,
  };
}

/** The API's filter parameters of the selection the server made (/api/filters): what is drawn. */
export function selectionParams(sel: FiltersResponse['selection']): Params {
  return {
    status: sel.run === null ? sel.status : undefined,
    run: sel.run,
    model: sel.model,
    isl: sel.isl,
    osl: sel.osl,
    precision: sel.precision,
    hardware: sel.hardware,
    framework: sel.framework,
  };
}

/** Explicit selections become what the server found valid (a value without data snaps or drops). */
export function snapState(state: InferenceState, sel: FiltersResponse['selection']): void {
  if (state.status !== undefined) state.status = sel.status;
  if (state.run !== undefined) state.run = sel.run ?? undefined;
  if (state.model !== undefined) state.model = sel.model ?? undefined;
  if (state.isl !== undefined) {
    state.isl = sel.isl ?? undefined;
    state.osl = sel.osl ?? undefined;
  }
  state.precision = sel.precision;
  state.hardware = sel.hardware;
  state.framework = sel.framework;
}

/** The URL query of a state, defaults left out. */
export function stateQuery(s: InferenceState): string {
  const d = DEFAULT_STATE;
  return queryString({
    ...filterParams(s),
    status: s.status === 'official' ? undefined : s.status,
    x: s.x === d.x ? undefined : s.x,
    y: s.y === d.y ? undefined : s.y,
    stat: s.stat === d.stat ? undefined : s.stat,
    log: s.log ? '1' : undefined,
    front: s.front ? '1' : undefined,
    price: s.price ?? undefined,
    hide: s.hide,
  });
}
