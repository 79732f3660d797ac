/**
 * Building DOM safely: text always goes in as text nodes (never parsed as HTML), so data from the store —
 * branch names, images, reasons, log lines — cannot inject markup (dashboard-spec pitfall 20).
 */

type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue | ((ev: Event) => void)>;
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (v === true) el.setAttribute(k, '');
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

export function clear(el: Element): void {
  el.replaceChildren();
}

/** A link inside the app: navigates without reloading the page. */
export function appLink(href: string, text: Child, attrs: Attrs = {}): HTMLAnchorElement {
  return h('a', { ...attrs, href, 'data-app-link': '1' }, text);
}

/** A download of a text or blob under a file name. */
export function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * A long path or id (`/data/runs/…/points/…`, `llama8b_256_64_bf16_…`) with a break opportunity after each
 * separator, in a span that may also break anywhere: it wraps at its slashes instead of widening the page.
 */
export function breakable(text: string, attrs: Attrs = {}): HTMLSpanElement {
  const parts = text.split(/(?<=[/_|,])/);
  return h(
    'span',
    { ...attrs, class: `path${attrs.class ? ` ${attrs.class}` : ''}` },
    parts.flatMap((part, i) => (i < parts.length - 1 ? [part, h('wbr')] : [part])),
  );
}
