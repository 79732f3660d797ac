import { readInputText } from '../config/read.ts';
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
    // A regular file (or a FIFO) of bounded size, in UTF-8; a directory or a device is refused.
    const read = readInputText(path, {
      what: `${what} file`,
      missingMessage: `${what} file '${path}' does not exist`,
      allowFifo: true,
    });
    if ('diagnostic' in read) {
      const d = read.diagnostic;
      throw new MatrixError(d.line !== null ? `${path}:${d.line}:${d.column}: ${d.message}` : d.message);
    }
    text = read.text;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MatrixError(
      `${what} ${path && path !== '-' ? `'${path}'` : '(stdin)'} is not valid JSON: ${(err as Error).message}`,
    );
  }
}
