import { existsSync, readFileSync } from 'node:fs';
import { MatrixError } from '../matrix/errors.ts';
import type { CliIO } from './io.ts';

/** Reads a JSON document from a file, or from stdin when the path is '-' or absent. */
export async function readJsonInput(path: string | undefined, io: CliIO, what: string): Promise<unknown> {
  let text: string;
  if (path === undefined || path === '-') {
    text = await io.readStdin();
    if (text.trim() === '')
      throw new MatrixError(
        `no ${what} on stdin: pipe one in (e.g. from infx matrix full-sweep) or pass --matrix FILE`,
        { usage: true },
      );
  } else {
    if (!existsSync(path)) throw new MatrixError(`${what} file '${path}' does not exist`);
    text = readFileSync(path, 'utf8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MatrixError(
      `${what} ${path && path !== '-' ? `'${path}'` : '(stdin)'} is not valid JSON: ${(err as Error).message}`,
    );
  }
}
