import { type Attrs, h } from '../dom.ts';

/** A labelled `<select>` of the dashboard's filter rows and toolbars, with option groups if asked. */

export interface SelectOption {
  value: string;
  label: string;
  disabled?: boolean;
  /** Why the option is disabled, as a hover hint. */
  title?: string | null;
}

export interface SelectGroup {
  group: string;
  options: readonly SelectOption[];
}

export function selectField(
  label: string,
  attrs: Attrs,
  options: readonly (SelectOption | SelectGroup)[],
  value: string,
  onChange: (v: string) => void,
): HTMLLabelElement {
  const option = (o: SelectOption) =>
    h(
      'option',
      { value: o.value, selected: o.value === value, disabled: o.disabled ?? false, title: o.title ?? null },
      o.label,
    );
  return h(
    'label',
    { class: 'field' },
    h('span', null, label),
    h(
      'select',
      { ...attrs, onchange: (e: Event) => onChange((e.target as HTMLSelectElement).value) },
      options.map((o) =>
        'group' in o ? h('optgroup', { label: o.group }, o.options.map(option)) : option(o),
      ),
    ),
  );
}

/** Options from `[value, label]` pairs. */
export const pairs = (list: readonly (readonly [string, string])[]): SelectOption[] =>
  list.map(([value, label]) => ({ value, label }));
