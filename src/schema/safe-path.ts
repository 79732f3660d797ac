import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InfxError } from './errors.ts';

/**
 * Paths built from ids (run ids, point ids, attempt numbers, file names from an API request) never leave
 * the folder they are built under: `safeJoin(root, ...parts)` is `join(root, ...parts)` that throws a
 * PathEscapeError instead of returning a path outside `root` (a `..`, an absolute part, a NUL). The run
 * directory's layout (src/schema/run-dir.ts) restricts the ids themselves; this is the guard every layer
 * applies where it turns them into paths (sweep, store, web), so a crafted id that got past one check still
 * cannot write or read outside. Not imported by src/schema/run-dir.ts or web-api.ts, which the browser
 * UI's types reach, since it needs node:path.
 */

export class PathEscapeError extends InfxError {
  override name = 'PathEscapeError';
}

const shown = (parts: readonly string[]) => parts.map((p) => JSON.stringify(p)).join(', ');

/** Whether `path` is `root` or below it (both absolute or both relative to the same folder). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * `root` joined with `parts`, guaranteed below `root` (lexically: `..` and absolute parts cannot climb out).
 * Relative roots stay relative, as join would return them.
 */
export function safeJoin(root: string, ...parts: string[]): string {
  for (const p of parts)
    if (p === '' || p.includes('\0') || isAbsolute(p))
      throw new PathEscapeError(
        `refusing the path ${shown(parts)} under ${root}: an empty part, a NUL or an absolute path is not a name inside it`,
      );
  const path = resolve(root, ...parts);
  if (!isInside(root, path) || path === resolve(root))
    throw new PathEscapeError(
      `refusing the path ${shown(parts)} under ${root}: it would lead outside that folder (${path})`,
    );
  return join(root, ...parts);
}

/** The real path of `path`, or of its deepest existing ancestor with the rest appended (for paths to create). */
function realOrAncestor(path: string): string {
  let p = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(p), ...rest.reverse());
    } catch {
      const up = dirname(p);
      if (up === p) return resolve(path);
      rest.push(p.slice(up.length + (up.endsWith(sep) ? 0 : 1)));
      p = up;
    }
  }
}

/**
 * Throws unless `path`, with symbolic links resolved (its deepest existing part), lies inside `root`'s
 * real path: a link planted in a run directory (points/<id> → /elsewhere) cannot redirect a write.
 */
export function assertRealInside(root: string, path: string): void {
  const r = realOrAncestor(root);
  const p = realOrAncestor(path);
  if (!isInside(r, p))
    throw new PathEscapeError(
      `refusing ${path}: it resolves to ${p}, outside ${root} (${r}); a symbolic link inside the folder points out of it`,
    );
}
