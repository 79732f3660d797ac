import { createReadStream, statSync } from 'node:fs';
import { TraceCorpusError } from './errors.ts';

/**
 * The lines of a file, read as a stream so that memory is bounded by the longest line, not the file: a
 * public trace line holds every hash id of every call of one run (megabytes), a corpus hundreds of them.
 * A line longer than `maxLineBytes` is an error rather than a string V8 cannot hold.
 */

/** The default bound on one line: far above any published trace, well below V8's string limit. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

export interface Line {
  /** 1-based. */
  lineNo: number;
  text: string;
}

export async function* readLines(file: string, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let pending = 0;
  let lineNo = 1;
  const tooLong = () => lineTooLong(file, lineNo, maxLineBytes);
  assertRegularFile(file);
  const stream = createReadStream(file);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        if (pending + nl - start > maxLineBytes) throw tooLong();
        parts.push(chunk.subarray(start, nl));
        yield { lineNo, text: Buffer.concat(parts).toString('utf8') };
        parts = [];
        pending = 0;
        lineNo++;
        start = nl + 1;
      }
      if (start < chunk.length) {
        pending += chunk.length - start;
        if (pending > maxLineBytes) throw tooLong();
        // A copy: the stream may reuse its chunk.
        parts.push(Buffer.from(chunk.subarray(start)));
      }
    }
  } catch (err) {
    if (err instanceof TraceCorpusError) throw err;
    throw unreadable(file, err);
  } finally {
    stream.destroy();
  }
  if (pending > 0) yield { lineNo, text: Buffer.concat(parts).toString('utf8') };
}

/** Throws the reader's error for a path that is missing, unreadable, or not a regular file. */
export function assertRegularFile(file: string): void {
  // A FIFO or a device would be read until its writer stops, maybe never; a folder says so late.
  let regular: boolean;
  try {
    regular = statSync(file).isFile();
  } catch (err) {
    throw unreadable(file, err);
  }
  if (!regular)
    throw new TraceCorpusError(
      `${file}: not a regular file (a folder, a FIFO or a device)`,
      'give the path of a traces.jsonl file',
    );
}

export function lineTooLong(file: string, lineNo: number, maxLineBytes: number): TraceCorpusError {
  return new TraceCorpusError(
    `${file}:${lineNo}: line longer than ${maxLineBytes} bytes`,
    'a traces.jsonl file holds one JSON trace per line; is this file newline-delimited?',
  );
}

export function unreadable(file: string, err: unknown): TraceCorpusError {
  const code = (err as NodeJS.ErrnoException).code;
  return new TraceCorpusError(
    code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot be read (${(err as Error).message})`,
    code === 'ENOENT' ? 'give the path of a traces.jsonl file' : undefined,
  );
}
