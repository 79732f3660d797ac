import { readFileSync } from 'node:fs';
import type { Diagnostic } from '../schema/diagnostic.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import { at } from './diagnostics.ts';
import type { MasterConfigs } from './load.ts';
import { SourceMap } from './yaml-source.ts';

/**
 * Warnings about configs the reference accepts but that will not behave as their author expects. They
 * never fail validation.
 */
export function lintConfigs(configs: MasterConfigs, runners: RunnerConfig | undefined): Diagnostic[] {
  const sources = new Map<string, SourceMap>();
  const source = (file: string) => {
    let s = sources.get(file);
    if (!s) {
      s = new SourceMap(readFileSync(file, 'utf8'));
      sources.set(file, s);
    }
    return s;
  };
  const out: Diagnostic[] = [];
  for (const { key, entry, file } of configs.entries) {
    const ctx = { file, source: source(file) };
    if (runners && !(entry.runner in runners.labels)) {
      out.push(
        at(
          ctx,
          [key, 'runner'],
          {},
          'runner.unknown-label',
          `runner '${entry.runner}' is not a label in the runner config, so --runner-node-filter and --runner-type never select this config; add the label under 'labels' or fix the name`,
          'warning',
        ),
      );
    }
    if (entry['model-prefix'].includes('_')) {
      out.push(
        at(
          ctx,
          [key, 'model-prefix'],
          {},
          'naming.model-prefix-underscore',
          `model-prefix '${entry['model-prefix']}' contains '_': launchers take the model prefix as everything before the first '_' of exp-name, so results would be filed under '${entry['model-prefix'].split('_')[0]}'`,
          'warning',
        ),
      );
    }
  }
  return out;
}
