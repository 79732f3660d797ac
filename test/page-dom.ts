/**
 * Just enough of the browser's DOM to type the callbacks that playwright runs inside Chromium (the Node
 * project has no DOM lib). Each file that needs them declares `document` / `window` with these types.
 */

export interface PageElement {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  getAttribute(name: string): string | null;
  append(child: PageElement): void;
  remove(): void;
  getBoundingClientRect(): unknown;
  textContent: string | null;
  innerHTML: string;
  clientWidth: number;
  scrollWidth: number;
  dataset: Record<string, string | undefined>;
  style: Record<string, string>;
}

export interface PageDocument {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  createElement(tag: string): PageElement;
  body: PageElement;
  documentElement: PageElement;
}
