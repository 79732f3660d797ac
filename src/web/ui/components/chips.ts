import { h } from '../dom.ts';

/**
 * A group of toggle chips for a multi-valued filter: none selected means all; a click on a chip while all
 * are shown picks only that one, and turning the last one off shows all again.
 */

export interface Chip {
  value: string;
  label: string;
  /** Hover hint (how many configs the value has). */
  title: string;
}

export function chipGroup(
  field: string,
  label: string,
  chips: readonly Chip[],
  selected: readonly string[],
  onChange: (selected: string[]) => void,
): HTMLElement {
  return h(
    'div',
    { class: 'chip-group', 'data-filter': field, role: 'group', 'aria-label': label },
    h('span', { class: 'chip-label' }, label),
    chips.map((c) =>
      h(
        'button',
        {
          type: 'button',
          class: `chip${selected.length === 0 ? ' all' : ''}`,
          'data-value': c.value,
          'aria-pressed': String(selected.includes(c.value)),
          title: c.title,
          onclick: () =>
            onChange(
              selected.includes(c.value) ? selected.filter((v) => v !== c.value) : [...selected, c.value],
            ),
        },
        c.label,
      ),
    ),
    selected.length > 0
      ? h('button', { type: 'button', class: 'link', onclick: () => onChange([]) }, 'all')
      : h('span', { class: 'muted chip-all' }, 'all'),
  );
}
