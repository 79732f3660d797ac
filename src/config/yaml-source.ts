import yaml from 'js-yaml';
import type { Diagnostic, DocPath } from '../schema/diagnostic.ts';
import { REFERENCE_DEPTH, YAML_LIMITS } from './limits.ts';
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

/** The listener reports where the parser stood, which can be before separating blanks or comments. */
function skipBlank(text: string, offset: number): number {
  let i = offset;
  for (;;) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
    else if (c === '#') while (i < text.length && text[i] !== '\n') i++;
    else return i;
  }
}

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
    let i = skipBlank(text, offset);
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

/** Where an offset of the text is, 1-based (for problems found while parsing, before any tree exists). */
function positionOf(text: string, at: number): Position {
  let offset = skipBlank(text, at);
  if (offset >= text.length) offset = at;
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** A limit of YAML_LIMITS was hit while parsing. */
class YamlLimitError extends Error {
  constructor(
    readonly rule: string,
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * Loads YAML with bounded time and memory: nesting depth, nodes (aliases counted as the nodes they stand
 * for), alias uses and scalar length are all capped (YAML_LIMITS), so a hostile file (20,000 nested '[', a
 * billion laughs, a 50 MB scalar) is an error at a line instead of a stack overflow or gigabytes of memory.
 */
function loadBounded(text: string, json: boolean): unknown {
  let nodes = 0;
  let aliases = 0;
  let lastAlias = -1;
  // Where each open node starts: a problem found when a node closes is reported where the node began.
  const starts: number[] = [];
  const value = yaml.load(text, {
    schema: YAML11_SCHEMA,
    json,
    listener(event, state) {
      if (event === 'open') {
        if (starts.length >= YAML_LIMITS.maxDepth)
          throw new YamlLimitError(
            'yaml.too-deep',
            `nesting deeper than ${YAML_LIMITS.maxDepth} levels (the reference configs nest ${REFERENCE_DEPTH}): flatten the structure`,
            state.position,
          );
        if (++nodes > YAML_LIMITS.maxNodes)
          throw new YamlLimitError(
            'yaml.too-large',
            `more than ${YAML_LIMITS.maxNodes.toLocaleString('en-US')} YAML nodes in one file: split it into several files`,
            state.position,
          );
        starts.push(state.position);
        return;
      }
      const start = starts.pop() ?? state.position;
      const result: unknown = state.result;
      if (state.kind === null && result !== null && result !== undefined) {
        // An alias (*name): the only node that closes with content but no kind. js-yaml wraps some nodes
        // in a second one that closes where the first did: count the alias once.
        if (state.position === lastAlias) return;
        lastAlias = state.position;
        if (++aliases > YAML_LIMITS.maxAliases)
          throw new YamlLimitError(
            'yaml.too-many-aliases',
            `more than ${YAML_LIMITS.maxAliases.toLocaleString('en-US')} aliases (*name) in one file: write the values out or use fewer anchors`,
            start,
          );
      } else if (typeof result === 'string' && result.length > YAML_LIMITS.maxScalarChars) {
        throw new YamlLimitError(
          'yaml.scalar-too-long',
          `a scalar of ${result.length.toLocaleString('en-US')} characters, over the ${YAML_LIMITS.maxScalarChars.toLocaleString('en-US')} limit: no config value is that long`,
          start,
        );
      }
    },
  });
  // Aliases share one object: count what they expand to (memoized, so this is linear in the distinct nodes).
  if (aliases > 0 && expandedNodes(value) > YAML_LIMITS.maxNodes)
    throw new YamlLimitError(
      'yaml.too-large',
      `aliases expand this file to more than ${YAML_LIMITS.maxNodes.toLocaleString('en-US')} YAML nodes (an alias bomb?): write the values out or use fewer aliases`,
      0,
    );
  return value;
}

/** Nodes of a loaded document as if every alias were written out; stops counting past the limit. */
function expandedNodes(root: unknown): number {
  const sizes = new Map<object, number>();
  const cap = YAML_LIMITS.maxNodes + 1;
  const size = (v: unknown, depth: number): number => {
    if (v === null || typeof v !== 'object' || depth > YAML_LIMITS.maxDepth + 1) return 1;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    let n = 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      n += size(child, depth + 1);
      if (n >= cap) break;
    }
    n = Math.min(n, cap);
    sizes.set(v, n);
    return n;
  };
  return size(root, 0);
}

export function parseYaml(file: string, text: string): ParsedYaml {
  const source = new SourceMap(text);
  // A file that cannot be read as YAML: no value, one error where the parser stopped.
  const unreadable = (
    rule: string,
    message: string,
    line: number | null,
    column: number | null,
  ): ParsedYaml => ({
    file,
    value: undefined,
    source,
    diagnostics: [{ severity: 'error', rule, message, file, line, column, path: [] }],
  });
  try {
    return { file, value: loadBounded(text, false), source, diagnostics: [] };
  } catch (err) {
    if (err instanceof YamlLimitError) {
      const pos = err.offset > 0 ? positionOf(text, err.offset) : null;
      return unreadable(err.rule, err.message, pos?.line ?? null, pos?.column ?? null);
    }
    if (!(err instanceof yaml.YAMLException)) throw err;
    if (!err.reason.startsWith('duplicated mapping key')) {
      const mark = err.mark as { line?: number; column?: number } | undefined;
      return unreadable(
        'yaml.syntax',
        `invalid YAML: ${err.reason}`,
        mark?.line !== undefined ? mark.line + 1 : null,
        mark?.column !== undefined ? mark.column + 1 : null,
      );
    }
  }
  // Duplicate keys: load again keeping the last value, and report every duplicate, not only the first.
  const value = loadBounded(text, true);
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
