import type { FilterOption, FiltersResponse } from '../../../schema/web-api.ts';
import { chipGroup } from '../components/chips.ts';
import { selectField } from '../components/select.ts';
import { appLink, h } from '../dom.ts';
import { when } from '../format.ts';
import type { InferenceState } from '../state.ts';

/**
 * The inference view's filters: model, sequence lengths, result status and run as menus, precision,
 * hardware and framework as chips. Only values with data are offered (/api/filters); a change edits the
 * view's state and asks for new data.
 */

type ListField = 'precision' | 'hardware' | 'framework';

const STATUSES = ['official', 'unofficial', 'staged'] as const;

export function filterRows(f: FiltersResponse, state: InferenceState, reload: () => void): HTMLElement[] {
  const sel = f.selection;
  const o = f.options;
  const menu = (
    name: string,
    label: string,
    options: { value: string; label: string; disabled?: boolean }[],
    value: string,
    onChange: (v: string) => void,
  ) =>
    selectField(label, { name, 'data-filter': name }, options, value, (v) => {
      onChange(v);
      reload();
    });
  const chips = (field: ListField, label: string, options: FilterOption[]) =>
    chipGroup(
      field,
      label,
      options.map((c) => ({
        value: c.value,
        label: c.label,
        title: `${c.configs} config${c.configs === 1 ? '' : 's'}`,
      })),
      state[field],
      (selected) => {
        state[field] = selected;
        reload();
      },
    );
  return [
    h(
      'div',
      { class: 'filter-row' },
      menu(
        'model',
        'Model',
        o.model.map((m) => ({ value: m.value, label: `${m.label} (${m.configs})` })),
        sel.model ?? '',
        (v) => {
          state.model = v;
        },
      ),
      menu(
        'workload',
        'Sequence (ISL/OSL)',
        o.workload.map((w) => ({ value: w.value, label: `${w.label} (${w.configs})` })),
        sel.isl === null ? '' : `${sel.isl}/${sel.osl}`,
        (v) => {
          const [isl, osl] = v.split('/').map(Number);
          state.isl = isl;
          state.osl = osl;
        },
      ),
      menu(
        'status',
        'Results',
        STATUSES.map((s) => {
          const opt = o.status.find((x) => x.value === s);
          const n = opt?.configs ?? 0;
          return { value: s, label: `${s} (${n} run${n === 1 ? '' : 's'})`, disabled: opt === undefined };
        }),
        sel.status,
        (v) => {
          state.status = v as InferenceState['status'];
          state.run = undefined;
        },
      ),
      menu(
        'run',
        'Run',
        [
          { value: '', label: 'latest result of each config' },
          ...o.run.map((r) => ({
            value: r.runId,
            label:
              `${r.runId} · ${when(r.createdAt)} · ${r.ingested}/${r.planned} ok` +
              (r.engine.kind === 'simulated' || r.engine.kind === 'mixed' ? ` · ${r.engine.kind}` : ''),
          })),
        ],
        sel.run ?? '',
        (v) => {
          state.run = v === '' ? undefined : v;
        },
      ),
      sel.run === null
        ? null
        : appLink(`/runs/${encodeURIComponent(sel.run)}`, 'run details →', { class: 'field-link' }),
    ),
    h(
      'div',
      { class: 'filter-row chips' },
      chips('precision', 'Precision', o.precision),
      chips('hardware', 'Hardware', o.hardware),
      chips('framework', 'Framework', o.framework),
    ),
  ];
}
