import yaml from 'js-yaml';
import type { Diagnostic, DocPath } from '../schema/diagnostic.ts';
import { YAML11_SCHEMA } from './yaml11.ts';

/**
 * YAML loading with source positions. The common case (a valid file) takes js-yaml's fast path with no
 * bookkeeping; positions are only computed when a diagnostic needs one, by parsing again with a
 * listener that records where every node starts.
 */

interface Frame {
  start: number;
  kind?: string;
  result?: unknown;
  children: Frame[];
}

export interface Position {
  line: number;
  column: number;
}

function buildTree(text: string): Frame | undefined {
  const stack: Frame[] = [{ start: 0, children: [] }];
  yaml.load(text, {
    schema: YAML11_SCHEMA,
    json: true,
    listener(event, state) {
      if (event === 'open') {
        stack.push({ start: state.position, children: [] });
        return;
      }
      const frame = stack.pop()!;
      frame.kind = state.kind ?? undefined;
      frame.result = state.result;
      stack[stack.length - 1]!.children.push(frame);
    },
  });
  const root = stack[0]!.children[0];
  return root ? normalize(root) : undefined;
}

/** js-yaml opens some nodes twice (a wrapper around the real node); keep the inner one. */
function normalize(frame: Frame): Frame {
  let f = frame;
  while (f.children.length === 1 && f.children[0]!.result === f.result) f = f.children[0]!;
  f.children = f.kind === 'scalar' ? [] : f.children.map(normalize);
  return f;
}

const keyOf = (frame: Frame) => String(frame.result);

export class SourceMap {
  readonly #text: string;
  #root: Frame | undefined | null = null;
  #lineStarts: number[] | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  #tree(): Frame | undefined {
    if (this.#root === null) {
      try {
        this.#root = buildTree(this.#text);
      } catch {
        this.#root = undefined;
      }
    }
    return this.#root;
  }

  #position(offset: number): Position {
    const text = this.#text;
    let i = offset;
    // The listener reports where the parser stood, which can be before separating blanks or comments.
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '#') while (i < text.length && text[i] !== '\n') i++;
      else break;
    }
    if (i >= text.length) i = offset;
    if (!this.#lineStarts) {
      this.#lineStarts = [0];
      for (let j = 0; j < text.length; j++) if (text.charCodeAt(j) === 10) this.#lineStarts.push(j + 1);
    }
    const starts = this.#lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: i - starts[lo]! + 1 };
  }

  /**
   * Where a path points. A scalar resolves to its value; a mapping or list, and with `key` any node, to
   * the key that owns it, which is the line a reader looks for. A path that does not exist (a missing
   * key) resolves to the deepest node that does.
   */
  locate(path: DocPath, opts: { key?: boolean } = {}): Position | undefined {
    let node = this.#tree();
    if (!node) return undefined;
    let keyNode: Frame | undefined;
    for (const seg of path) {
      const next = this.#child(node, seg);
      if (!next) break;
      keyNode = next.key;
      node = next.value;
    }
    const useKey = keyNode && (opts.key || node.kind !== 'scalar');
    return this.#position((useKey ? keyNode! : node).start);
  }

  #child(node: Frame, seg: string | number): { key?: Frame; value: Frame } | undefined {
    const c = node.children;
    if (node.kind === 'mapping') {
      // Last occurrence wins, as in the loaded value.
      for (let i = c.length - 2; i >= 0; i -= 2) {
        if (keyOf(c[i]!) === String(seg)) return { key: c[i]!, value: c[i + 1]! };
      }
      return undefined;
    }
    if (node.kind === 'sequence' && typeof seg === 'number' && c[seg]) return { value: c[seg]! };
    return undefined;
  }

  /** Every key defined twice in one mapping, anywhere in the document. */
  duplicateKeys(): { path: DocPath; key: string; at: Position; first: Position }[] {
    const out: { path: DocPath; key: string; at: Position; first: Position }[] = [];
    const walk = (node: Frame, path: DocPath) => {
      const c = node.children;
      if (node.kind === 'mapping') {
        const seen = new Map<string, Frame>();
        for (let i = 0; i + 1 < c.length; i += 2) {
          const key = keyOf(c[i]!);
          const first = seen.get(key);
          if (first)
            out.push({ path, key, at: this.#position(c[i]!.start), first: this.#position(first.start) });
          else seen.set(key, c[i]!);
          walk(c[i + 1]!, [...path, key]);
        }
      } else if (node.kind === 'sequence') {
        c.forEach((child, i) => {
          walk(child, [...path, i]);
        });
      }
    };
    const root = this.#tree();
    if (root) walk(root, []);
    return out;
  }
}

export interface ParsedYaml {
  file: string;
  value: unknown;
  source: SourceMap;
  /** Problems found while reading (syntax errors, duplicate keys). */
  diagnostics: Diagnostic[];
}

export function parseYaml(file: string, text: string): ParsedYaml {
  const source = new SourceMap(text);
  try {
    return { file, value: yaml.load(text, { schema: YAML11_SCHEMA }), source, diagnostics: [] };
  } catch (err) {
    if (!(err instanceof yaml.YAMLException)) throw err;
    if (!err.reason.startsWith('duplicated mapping key')) {
      const mark = err.mark as { line?: number; column?: number } | undefined;
      return {
        file,
        value: undefined,
        source,
        diagnostics: [
          {
            severity: 'error',
            rule: 'yaml.syntax',
            message: `invalid YAML: ${err.reason}`,
            file,
            line: mark?.line !== undefined ? mark.line + 1 : null,
            column: mark?.column !== undefined ? mark.column + 1 : null,
            path: [],
          },
        ],
      };
    }
  }
  // Duplicate keys: load again keeping the last value, and report every duplicate, not only the first.
  const value = yaml.load(text, { schema: YAML11_SCHEMA, json: true });
  const diagnostics: Diagnostic[] = source.duplicateKeys().map((d) => ({
    severity: 'error',
    rule: 'yaml.duplicate-key',
    message: `duplicate key '${d.key}' (first defined at line ${d.first.line}); YAML would silently keep only the last one, so remove or rename one of them`,
    file,
    line: d.at.line,
    column: d.at.column,
    path: [...d.path, d.key],
  }));
  return { file, value, source, diagnostics };
}
