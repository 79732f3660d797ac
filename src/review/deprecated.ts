import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { YAML11_SCHEMA } from '../config/yaml11.ts';

/**
 * The models the project archived (`configs/deprecated/*.yaml`: master-config entries moved out of the
 * active configs), by model id, with the file that archived each. A file that does not parse is skipped:
 * the archive is history, not input.
 */
export function deprecatedModels(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()) {
    let doc: unknown;
    try {
      doc = yaml.load(readFileSync(join(dir, name), 'utf8'), { schema: YAML11_SCHEMA });
    } catch {
      continue;
    }
    if (doc === null || typeof doc !== 'object') continue;
    for (const entry of Object.values(doc as Record<string, unknown>)) {
      const model = (entry as { model?: unknown } | null)?.model;
      if (typeof model === 'string' && !out.has(model)) out.set(model, name);
    }
  }
  return out;
}
