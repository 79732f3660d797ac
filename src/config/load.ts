import { existsSync, readFileSync } from 'node:fs';
import type { Diagnostic } from '../schema/diagnostic.ts';
import { isRecord } from '../schema/guards.ts';
import type { MasterEntry } from '../schema/master-config.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import type { ParseCache } from './cache.ts';
import { at, errorsOf, issueToDiagnostics } from './diagnostics.ts';

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
}

export interface Loaded<T> {
  value: T;
  diagnostics: Diagnostic[];
}

export interface LoadOptions {
  /** Parsed-and-validated files from earlier runs (see cache.ts). */
  cache?: ParseCache | undefined;
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

function readText(file: string, missingMessage: string): string | Diagnostic {
  if (!existsSync(file)) return fileDiagnostic(file, 'file.missing', missingMessage);
  return readFileSync(file, 'utf8');
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
  const [{ masterEntrySchemaFor }, { parseYaml }] = await Promise.all([
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
  for (const [key, raw] of Object.entries(doc)) {
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
  return { doc, diagnostics };
}

/** Every diagnostic of every file is collected; nothing stops at the first problem. */
export async function loadMasterConfigs(
  files: readonly string[],
  opts: LoadOptions = {},
): Promise<Loaded<MasterConfigs>> {
  const entries: ConfigEntry[] = [];
  const byKey = new Map<string, ConfigEntry>();
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    const text = readText(file, `Input file '${file}' does not exist.`);
    if (typeof text !== 'string') {
      diagnostics.push(text);
      continue;
    }
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
  return { value: { entries, byKey }, diagnostics };
}

export async function loadRunnerConfig(file: string, opts: LoadOptions = {}): Promise<Loaded<RunnerConfig>> {
  const empty: RunnerConfig = { labels: {}, hardware: {} };
  const text = readText(file, `Runner config file '${file}' does not exist.`);
  if (typeof text !== 'string') return { value: empty, diagnostics: [text] };
  const cached = opts.cache?.get('runners', text);
  if (isRecord(cached)) return { value: cached as unknown as RunnerConfig, diagnostics: [] };
  const { parseYaml } = await import('./yaml-source.ts');
  const parsed = parseYaml(file, text);
  const diagnostics = [...parsed.diagnostics];
  const doc = parsed.value;
  if (doc === undefined && diagnostics.length > 0) return { value: empty, diagnostics };
  if (!isRecord(doc) || !isRecord(doc.labels)) {
    diagnostics.push(
      at(
        parsed,
        ['labels'],
        {},
        'runners.labels-mapping',
        'Runner config must define a labels mapping (label -> list of runner node names)',
      ),
    );
    return { value: empty, diagnostics };
  }
  const { RunnerConfigSchema } = await import('../schema/runners.ts');
  const result = RunnerConfigSchema.safeParse(doc, { reportInput: true });
  if (!result.success) {
    const ctx = { file, source: parsed.source, prefix: [] };
    for (const issue of result.error.issues) diagnostics.push(...issueToDiagnostics(issue, ctx));
  }
  const hardware = isRecord(doc.hardware) ? (doc.hardware as RunnerConfig['hardware']) : {};
  const value: RunnerConfig = { labels: doc.labels as RunnerConfig['labels'], hardware };
  if (errorsOf(diagnostics).length === 0) opts.cache?.set('runners', text, value);
  return { value, diagnostics };
}
