import { existsSync, readFileSync } from 'node:fs';
import type { Diagnostic } from '../schema/diagnostic.ts';
import { type MasterEntry, masterEntrySchemaFor } from '../schema/master-config.ts';
import { type RunnerConfig, RunnerConfigSchema } from '../schema/runners.ts';
import { isRecord } from '../schema/zod-helpers.ts';
import { at, issueToDiagnostics } from './diagnostics.ts';
import { type ParsedYaml, parseYaml } from './yaml-source.ts';

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

const fileDiagnostic = (file: string, rule: string, message: string): Diagnostic => ({
  severity: 'error',
  rule,
  message,
  file,
  line: null,
  column: null,
  path: [],
});

function readYaml(file: string, missingMessage: string): ParsedYaml | Diagnostic {
  if (!existsSync(file)) return fileDiagnostic(file, 'file.missing', missingMessage);
  return parseYaml(file, readFileSync(file, 'utf8'));
}

export function loadMasterConfigs(files: readonly string[]): Loaded<MasterConfigs> {
  const entries: ConfigEntry[] = [];
  const byKey = new Map<string, ConfigEntry>();
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    const parsed = readYaml(file, `Input file '${file}' does not exist.`);
    if (!('source' in parsed)) {
      diagnostics.push(parsed);
      continue;
    }
    diagnostics.push(...parsed.diagnostics);
    const doc = parsed.value;
    if (doc === undefined && parsed.diagnostics.length > 0) continue;
    if (!isRecord(doc)) {
      diagnostics.push(
        fileDiagnostic(
          file,
          'file.not-mapping',
          `Config file '${file}' must contain a dictionary (a mapping of config keys to entries)`,
        ),
      );
      continue;
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
      const earlier = byKey.get(key);
      if (earlier) {
        diagnostics.push(
          at(
            parsed,
            [key],
            { key: true },
            'key.duplicate-across-files',
            `Duplicate configuration keys found in '${file}': ${key} (already defined in '${earlier.file}')`,
          ),
        );
        continue;
      }
      const result = masterEntrySchemaFor(raw).safeParse(raw);
      if (!result.success) {
        const ctx = { file, source: parsed.source, prefix: [key] };
        for (const issue of result.error.issues) diagnostics.push(...issueToDiagnostics(issue, ctx));
      }
      const ce: ConfigEntry = { key, entry: raw as MasterEntry, file };
      entries.push(ce);
      byKey.set(key, ce);
    }
  }
  return { value: { entries, byKey }, diagnostics };
}

export function loadRunnerConfig(file: string): Loaded<RunnerConfig> {
  const empty: RunnerConfig = { labels: {}, hardware: {} };
  const parsed = readYaml(file, `Runner config file '${file}' does not exist.`);
  if (!('source' in parsed)) return { value: empty, diagnostics: [parsed] };
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
  const result = RunnerConfigSchema.safeParse(doc);
  if (!result.success) {
    const ctx = { file, source: parsed.source, prefix: [] };
    for (const issue of result.error.issues) diagnostics.push(...issueToDiagnostics(issue, ctx));
  }
  const hardware = isRecord(doc.hardware) ? (doc.hardware as RunnerConfig['hardware']) : {};
  return { value: { labels: doc.labels as RunnerConfig['labels'], hardware }, diagnostics };
}
