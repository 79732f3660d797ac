import type { Diagnostic } from '../schema/diagnostic.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import { at } from './diagnostics.ts';
import type { MasterConfigs } from './load.ts';
import { readInputText } from './read.ts';
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
      // The text it was loaded from, else the file again (it validated a moment ago; should it have
      // changed since, positions are just not found).
      let text = configs.texts?.get(file);
      if (text === undefined) {
        const read = readInputText(file);
        text = 'text' in read ? read.text : '';
      }
      s = new SourceMap(text);
      sources.set(file, s);
    }
    return s;
  };
  const out: Diagnostic[] = [];
  for (const { key, entry, file } of configs.entries) {
    // Positions are only looked up (and the file only read again) when there is something to report.
    const ctx = {
      file,
      get source() {
        return source(file);
      },
    };
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
