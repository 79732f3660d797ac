import {
  axisTitle,
  CHART_STATS,
  type ChartStat,
  STAT_LABEL,
  X_AXES,
  X_AXIS,
  type XAxis,
  Y_METRIC_GROUPS,
  type YMetric,
} from '../../../analysis/axes.ts';
import { selectField } from '../components/select.ts';
import { type Child, h } from '../dom.ts';
import type { InferenceState } from '../state.ts';

/**
 * The inference chart's toolbar: the axes and statistic, the price for the cost metrics, log scale and
 * Pareto-front-only, and the actions (copy link, CSV, PNG). A change edits the view's state and redraws.
 */

export interface ToolbarActions {
  redraw(): void;
  share(e: Event): Promise<void>;
  /** The CSV export of what is drawn. */
  csvHref: string;
  png(): Promise<void>;
}

function check(name: string, label: string, on: boolean, change: (v: boolean) => void): HTMLElement {
  return h(
    'label',
    { class: 'check' },
    h('input', {
      type: 'checkbox',
      name,
      checked: on,
      onchange: (e: Event) => change((e.target as HTMLInputElement).checked),
    }),
    label,
  );
}

function priceField(state: InferenceState, redraw: () => void): HTMLElement {
  return h(
    'label',
    { class: 'field price' },
    h('span', null, '$/GPU-hour'),
    h('input', {
      type: 'number',
      name: 'price',
      min: '0',
      step: '0.01',
      placeholder: 'catalog',
      value: state.price ?? '',
      onchange: (e: Event) => {
        const v = Number((e.target as HTMLInputElement).value);
        state.price = Number.isFinite(v) && v > 0 ? v : null;
        redraw();
      },
    }),
  );
}

/** The toolbar's controls; the energy metric is offered only where some point has power measured. */
export function toolbarItems(state: InferenceState, hasEnergy: boolean, actions: ToolbarActions): Child[] {
  const { redraw } = actions;
  const noEnergy = (v: YMetric) => v === 'energy' && !hasEnergy;
  return [
    selectField(
      'X axis',
      { name: 'x', 'data-filter': 'x' },
      X_AXES.map((x) => ({ value: x, label: axisTitle(X_AXIS[x]) })),
      state.x,
      (v) => {
        state.x = v as XAxis;
        redraw();
      },
    ),
    selectField(
      'Y axis',
      { name: 'y' },
      Y_METRIC_GROUPS.map((g) => ({
        group: g.label,
        options: g.options.map(([v, label]) => ({
          value: v,
          label,
          disabled: noEnergy(v),
          title: noEnergy(v) ? 'no power measured for these points' : null,
        })),
      })),
      state.y,
      (v) => {
        state.y = v as YMetric;
        redraw();
      },
    ),
    selectField(
      'Statistic',
      { name: 'stat', 'data-filter': 'stat' },
      CHART_STATS.map((s) => ({ value: s, label: STAT_LABEL[s] })),
      state.stat,
      (v) => {
        state.stat = v as ChartStat;
        redraw();
      },
    ),
    state.y.startsWith('cost') ? priceField(state, redraw) : null,
    h(
      'div',
      { class: 'checks' },
      check('log', 'Log scale', state.log, (v) => {
        state.log = v;
        redraw();
      }),
      check('front', 'Pareto front only', state.front, (v) => {
        state.front = v;
        redraw();
      }),
    ),
    h('span', { class: 'spacer' }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', name: 'share', onclick: actions.share }, 'Copy link'),
      h(
        'a',
        { class: 'button', 'data-action': 'csv', href: actions.csvHref, download: 'infx-points.csv' },
        'CSV',
      ),
      h('button', { type: 'button', name: 'png', onclick: () => void actions.png() }, 'PNG'),
    ),
  ];
}
