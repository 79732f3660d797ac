import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { addToCatalog, CatalogError } from '../catalog/index.ts';
import { type UserCatalog, UserCatalogSchema } from '../schema/catalog.ts';
import { readInputText } from './read.ts';
import { parseYaml } from './yaml-source.ts';

/**
 * A user catalog: accelerators and models of one's own, in a YAML (or JSON) file with the built-in entries'
 * fields (`infx schema catalog`), added to the catalog without editing source. An entry with a built-in id
 * replaces it. Found from `--catalog FILE`, else `$INFX_CATALOG`, else `.infx/catalog.yaml` when present.
 */

import { USER_CATALOG_DEFAULT, USER_CATALOG_ENV } from './user-catalog-path.ts';

export { USER_CATALOG_DEFAULT, USER_CATALOG_ENV };

/** A catalog is a few entries; anything far larger is not one. */
const MAX_BYTES = 4 * 1024 * 1024;

/** The catalog file's text, read with the bounds of every input file (read.ts): a FIFO or device is refused. */
function readCatalogText(file: string): string {
  const read = readInputText(file, {
    what: 'catalog file',
    maxBytes: MAX_BYTES,
    missingMessage: `catalog file '${file}' does not exist`,
  });
  if ('diagnostic' in read) {
    const d = read.diagnostic;
    // read.ts's hints are for config files ("name the YAML files in it"): a catalog is one file.
    const kind = /' is (.+?), not a (?:regular )?file/.exec(d.message)?.[1];
    if (d.rule === 'file.not-regular')
      throw new CatalogError(
        `catalog file '${file}' is not a regular file${kind ? ` (${kind})` : ''}: give the path of a YAML file`,
      );
    throw new CatalogError(d.message);
  }
  return read.text;
}

const where = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');

/** Reads and checks a catalog file; throws a CatalogError naming the file and the key path of every problem. */
export function readUserCatalog(file: string): UserCatalog {
  const text = readCatalogText(file);
  // The bounded YAML reader of config files: depth, node and alias bounds, duplicate keys, positions.
  const { value, diagnostics } = parseYaml(file, text);
  const error = diagnostics[0];
  if (error)
    throw new CatalogError(
      `catalog file '${file}'${error.line !== null ? `:${error.line}:${error.column}` : ''}: ${error.message}`,
    );
  const doc = value ?? {};
  const parsed = UserCatalogSchema.safeParse(doc);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${where(i.path) || '(top level)'}: ${i.message}`);
    throw new CatalogError(
      `catalog file '${file}' is not a catalog (accelerators: and models: lists of entries like the built-in ` +
        `ones, see \`infx schema catalog\`):\n${problems.join('\n')}`,
    );
  }
  const ids = new Set<string>();
  for (const a of parsed.data.accelerators) {
    if (ids.has(a.id))
      throw new CatalogError(`catalog file '${file}': accelerator '${a.id}' is listed twice`);
    ids.add(a.id);
  }
  return parsed.data;
}

/**
 * Adds a user catalog to the catalog: `file` when given, else $INFX_CATALOG, else .infx/catalog.yaml when it
 * exists. Returns what was loaded (null when there was nothing to load). The resolved path is put in
 * $INFX_CATALOG so every process infx starts (engines, sweep points) sees the same catalog.
 */
export function useUserCatalog(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = defaultExists,
): { file: string; accelerators: string[]; models: string[]; replaced: string[] } | null {
  const chosen =
    file ?? env[USER_CATALOG_ENV] ?? (exists(USER_CATALOG_DEFAULT) ? USER_CATALOG_DEFAULT : undefined);
  if (chosen === undefined || chosen === '') return null;
  const path = resolve(chosen);
  const earlier = loaded.get(path);
  if (earlier) return earlier;
  const catalog = readUserCatalog(path);
  const { replaced } = addToCatalog(catalog);
  env[USER_CATALOG_ENV] = path;
  const result = {
    file: path,
    accelerators: catalog.accelerators.map((a) => a.id),
    models: catalog.models.map((m) => m.id),
    replaced,
  };
  loaded.set(path, result);
  return result;
}

/** Catalogs already added in this process (a second call with the same file changes nothing). */
const loaded = new Map<string, NonNullable<ReturnType<typeof useUserCatalog>>>();

function defaultExists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
