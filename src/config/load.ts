import type { Diagnostic } from '../schema/diagnostic.ts';
import { isRecord } from '../schema/guards.ts';
import type { MasterEntry } from '../schema/master-config.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import type { ParseCache } from './cache.ts';
import { at, dedupe, errorsOf, issueToDiagnostics } from './diagnostics.ts';
import { MAX_SEARCH_SPACE_ENTRIES } from './limits.ts';
import { readInputText } from './read.ts';

/** Loading and validating master configs and runners.yaml (matrix-spec §1–2). */

export interface ConfigEntry {
  key: string;
  entry: MasterEntry;
  file: string;
}

/** Master configs merged in file order, keys in YAML order (this order drives the matrix order). */
export interface MasterConfigs {
  entries: ConfigEntry[];
  byKey: Map<string, ConfigEntry>;
  /** The text of each file, when loaded with `keepTexts` (for positions of later diagnostics). */
  texts?: ReadonlyMap<string, string> | undefined;
}

export interface Loaded<T> {
  value: T;
  diagnostics: Diagnostic[];
}

export interface LoadOptions {
  /** Parsed-and-validated files from earlier runs (see cache.ts). */
  cache?: ParseCache | undefined;
  /** Keep each file's text in MasterConfigs.texts (validate's lint points into it without reading again). */
  keepTexts?: boolean | undefined;
}

/** A problem with a whole file: no position when it cannot be read, its start when its content is wrong. */
const fileDiagnostic = (file: string, rule: string, message: string, atStart = false): Diagnostic => ({
  severity: 'error',
  rule,
  message,
  file,
  line: atStart ? 1 : null,
  column: atStart ? 1 : null,
  path: [],
});

function readText(file: string, missingMessage: string, what: string): string | Diagnostic {
  const read = readInputText(file, { missingMessage, what });
  return 'text' in read ? read.text : read.diagnostic;
}

const looksLikeRunnerConfig = (doc: Record<string, unknown>) =>
  isRecord(doc.labels) && Object.values(doc.labels).every((v) => Array.isArray(v));

/** Why a config key's value is not an entry, in words ("empty", "a list", "the int 5"). */
function describeNonEntry(raw: unknown): string {
  if (raw === null || raw === undefined) return 'empty';
  if (Array.isArray(raw)) return 'a list';
  if (typeof raw === 'string') return `the string '${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}'`;
  return `the ${typeof raw === 'number' ? (Number.isInteger(raw) ? 'int' : 'float') : typeof raw} ${String(raw)}`;
}

/**
 * One master file, parsed and validated; or taken whole from the cache when this exact text validated
 * before. The YAML parser and the schemas are only loaded when something has to be parsed.
 */
async function loadMasterFile(
  file: string,
  text: string,
  cache: ParseCache | undefined,
): Promise<{ doc?: Record<string, unknown>; diagnostics: Diagnostic[] }> {
  const cached = cache?.get('master', text);
  if (isRecord(cached)) return { doc: cached, diagnostics: [] };
  const [{ masterEntrySchemaFor, searchSpaceEntries }, { parseYaml }] = await Promise.all([
    import('../schema/master-config.ts'),
    import('./yaml-source.ts'),
  ]);
  const parsed = parseYaml(file, text);
  const diagnostics = [...parsed.diagnostics];
  const doc = parsed.value;
  if (doc === undefined && diagnostics.length > 0) return { diagnostics };
  if (!isRecord(doc)) {
    diagnostics.push(
      fileDiagnostic(
        file,
        'file.not-mapping',
        `Config file '${file}' must contain a dictionary (a mapping of config keys to entries)`,
        true,
      ),
    );
    return { diagnostics };
  }
  if (looksLikeRunnerConfig(doc)) {
    diagnostics.push(
      at(
        parsed,
        ['labels'],
        { key: true },
        'file.is-runner-config',
        `'${file}' is a runner config (it maps 'labels' to runner nodes), not a master config: pass it with --runner-config, and master configs with --config-files`,
      ),
    );
    return { diagnostics };
  }
  // Bound the work before validating: every entry is parsed, expanded and summarised.
  let entries = 0;
  for (const [key, raw] of Object.entries(doc)) {
    for (const { path } of searchSpaceEntries(isRecord(raw) ? raw : {})) {
      if (++entries > MAX_SEARCH_SPACE_ENTRIES) {
        diagnostics.push(
          at(
            parsed,
            [key, ...path],
            {},
            'size.search-space',
            `more than ${MAX_SEARCH_SPACE_ENTRIES.toLocaleString('en-US')} search-space entries in one file (this is entry ${entries.toLocaleString('en-US')}): split the configs over several files or trim the search space`,
          ),
        );
        return { diagnostics };
      }
    }
  }
  for (const [key, raw] of Object.entries(doc)) {
    if (!isRecord(raw)) {
      diagnostics.push(
        at(
          parsed,
          [key],
          { key: true },
          'entry.not-mapping',
          `config entry '${key}' is ${describeNonEntry(raw)}: it must be a mapping with image, model, model-prefix, precision, framework, runner, multinode and scenarios`,
        ),
      );
      continue;
    }
    if (key.includes('*')) {
      diagnostics.push(
        at(
          parsed,
          [key],
          { key: true },
          'key.wildcard',
          `Wildcard '*' is not allowed in master config keys: '${key}' ('*' is reserved for changelog wildcards)`,
        ),
      );
    }
    const result = masterEntrySchemaFor(raw).safeParse(raw, { reportInput: true });
    if (!result.success) {
      const ctx = { file, source: parsed.source, prefix: [key] };
      for (const issue of result.error.issues) diagnostics.push(...issueToDiagnostics(issue, ctx));
    }
  }
  if (errorsOf(diagnostics).length === 0) cache?.set('master', text, doc);
  return { doc, diagnostics: dedupe(diagnostics) };
}

/** Every diagnostic of every file is collected; nothing stops at the first problem. */
export async function loadMasterConfigs(
  files: readonly string[],
  opts: LoadOptions = {},
): Promise<Loaded<MasterConfigs>> {
  const entries: ConfigEntry[] = [];
  const byKey = new Map<string, ConfigEntry>();
  const diagnostics: Diagnostic[] = [];
  const texts = opts.keepTexts ? new Map<string, string>() : undefined;
  for (const file of files) {
    const text = readText(file, `Input file '${file}' does not exist.`, 'config file');
    if (typeof text !== 'string') {
      diagnostics.push(text);
      continue;
    }
    texts?.set(file, text);
    const loaded = await loadMasterFile(file, text, opts.cache);
    diagnostics.push(...loaded.diagnostics);
    if (!loaded.doc) continue;
    for (const [key, raw] of Object.entries(loaded.doc)) {
      const earlier = byKey.get(key);
      if (earlier) {
        const { SourceMap } = await import('./yaml-source.ts');
        diagnostics.push(
          at(
            { file, source: new SourceMap(text) },
            [key],
            { key: true },
            'key.duplicate-across-files',
            `Duplicate configuration keys found in '${file}': ${key} (already defined in '${earlier.file}')`,
          ),
        );
        continue;
      }
      const ce: ConfigEntry = { key, entry: raw as MasterEntry, file };
      entries.push(ce);
      byKey.set(key, ce);
    }
  }
  return { value: { entries, byKey, texts }, diagnostics };
}

export async function loadRunnerConfig(file: string, opts: LoadOptions = {}): Promise<Loaded<RunnerConfig>> {
  const empty: RunnerConfig = { labels: {}, hardware: {} };
  const text = readText(file, `Runner config file '${file}' does not exist.`, 'runner config');
  if (typeof text !== 'string') return { value: empty, diagnostics: [text] };
  const cached = opts.cache?.get('runners', text);
  if (isRecord(cached)) return { value: cached as unknown as RunnerConfig, diagnostics: [] };
  const { parseYaml } = await import('./yaml-source.ts');
  const parsed = parseYaml(file, text);
  const diagnostics = [...parsed.diagnostics];
  const doc = parsed.value;
  if (doc === undefined && diagnostics.length > 0) return { value: empty, diagnostics };
  if (!isRecord(doc) || !isRecord(doc.labels)) {
    const master =
      isRecord(doc) && Object.values(doc).some((v) => isRecord(v) && 'scenarios' in v)
        ? ` ('${file}' looks like a master config: pass it with --config-files)`
        : '';
    diagnostics.push(
      at(
        parsed,
        ['labels'],
        {},
        'runners.labels-mapping',
        `Runner config must define a labels mapping (label -> list of runner node names)${master}`,
      ),
    );
    return { value: empty, diagnostics };
  }
  const { RunnerConfigSchema, unsafeLabel } = await import('../schema/runners.ts');
  const result = RunnerConfigSchema.safeParse(doc, { reportInput: true });
  if (!result.success) {
    const ctx = { file, source: parsed.source, prefix: [] };
    for (const issue of result.error.issues) diagnostics.push(...issueToDiagnostics(issue, ctx));
  }
  for (const label of Object.keys(doc.labels)) {
    const why = unsafeLabel(label);
    if (why) diagnostics.push(at(parsed, ['labels', label], { key: true }, 'naming.unsafe', why));
  }
  const hardware = isRecord(doc.hardware) ? (doc.hardware as RunnerConfig['hardware']) : {};
  const value: RunnerConfig = { labels: doc.labels as RunnerConfig['labels'], hardware };
  if (errorsOf(diagnostics).length === 0) opts.cache?.set('runners', text, value);
  return { value, diagnostics: dedupe(diagnostics) };
}
