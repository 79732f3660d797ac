import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { TraceCorpusError } from './errors.ts';
import { assertRegularFile, lineTooLong, MAX_LINE_BYTES, unreadable } from './lines.ts';

/**
 * Where the trace lines of a corpus are: byte spans found in one pass over the files (the pass that
 * hashes them, compile-hash.ts), so that a start reads and parses the one trace it needs first rather
 * than the whole corpus (a public-size one is GBs of JSON). Blank lines are left out.
 */

export interface LineSpan {
  /** Index of the file in the corpus's file list. */
  file: number;
  offset: number;
  length: number;
  /** 1-based. */
  lineNo: number;
}

const isBlankByte = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0b || b === 0x0c;

/** Builds the spans of one file from its bytes, fed in order. */
export class LineIndexer {
  readonly spans: LineSpan[] = [];
  private offset = 0;
  private lineStart = 0;
  private lineNo = 1;
  /** Whether the current line has a byte other than ASCII blanks (a non-ASCII space is judged on parse). */
  private content = false;

  constructor(
    private readonly path: string,
    private readonly fileIndex: number,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); ; nl = chunk.indexOf(10, start)) {
      const end = nl === -1 ? chunk.length : nl;
      if (!this.content)
        for (let i = start; i < end; i++)
          if (!isBlankByte(chunk[i] as number)) {
            this.content = true;
            break;
          }
      if (this.offset + end - this.lineStart > this.maxLineBytes)
        throw lineTooLong(this.path, this.lineNo, this.maxLineBytes);
      if (nl === -1) break;
      this.endLine(this.offset + nl);
      this.lineStart = this.offset + nl + 1;
      start = nl + 1;
    }
    this.offset += chunk.length;
  }

  /** The spans, the last line too when the file does not end in a newline. */
  finish(): LineSpan[] {
    if (this.offset > this.lineStart) this.endLine(this.offset);
    return this.spans;
  }

  private endLine(end: number): void {
    if (this.content)
      this.spans.push({
        file: this.fileIndex,
        offset: this.lineStart,
        length: end - this.lineStart,
        lineNo: this.lineNo,
      });
    this.content = false;
    this.lineNo++;
  }
}

/** The spans of `path` (its error if missing, unreadable, not a regular file, or a line too long). */
export async function indexLines(
  path: string,
  fileIndex: number,
  maxLineBytes = MAX_LINE_BYTES,
): Promise<LineSpan[]> {
  assertRegularFile(path);
  const indexer = new LineIndexer(path, fileIndex, maxLineBytes);
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>)
      indexer.push(chunk);
  } catch (err) {
    if (err instanceof TraceCorpusError) throw err;
    throw unreadable(path, err);
  }
  return indexer.finish();
}

/** The text of one line, read at its span. */
export function readSpan(path: string, span: LineSpan): string {
  const bytes = Buffer.allocUnsafe(span.length);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw unreadable(path, err);
  }
  try {
    let got = 0;
    while (got < span.length) {
      const n = readSync(fd, bytes, got, span.length - got, span.offset + got);
      if (n === 0) break;
      got += n;
    }
    return bytes.toString('utf8', 0, got);
  } catch (err) {
    throw unreadable(path, err);
  } finally {
    closeSync(fd);
  }
}
