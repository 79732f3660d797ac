/**
 * Incremental Server-Sent-Events splitter over raw socket bytes. It keeps no 64 KB line limit (that is
 * what collapses long-context runs in other clients) and never decodes more than the bytes of complete
 * lines. Only `data:` fields matter for OpenAI streams; comments and other fields are skipped as the SSE
 * format says.
 *
 * Work is linear in the bytes received: each byte is searched for a newline once, and the pieces of a
 * line that spans reads are kept as they came and joined once, when its newline arrives (joining them on
 * every read is quadratic: a 100 MB line cost 35 s of CPU). One line may hold at most
 * MAX_SSE_LINE_BYTES; past that the splitter stops and says so (`overflow`), so a server that never
 * sends a newline costs bounded memory.
 */
const NL = 0x0a;
const CR = 0x0d;

/**
 * The longest SSE line (one `data:` event) accepted: 16 MiB. A real chunk is a few hundred bytes (one
 * token's text and its JSON; a usage chunk; a long-context response still streams token by token), so
 * this only stops a broken or hostile stream.
 */
export const MAX_SSE_LINE_BYTES = 16 * 1024 * 1024;

export class SseSplitter {
  /** Copies of the pieces of an unterminated line (the caller may reuse the read buffer). */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** Bytes fed in (each is searched once) and bytes copied to hold unterminated lines: the work done. */
  scannedBytes = 0;
  copiedBytes = 0;
  /** A line grew past the limit: nothing more is split, the stream must be dropped. */
  overflow = false;

  constructor(private readonly maxLineBytes = MAX_SSE_LINE_BYTES) {}

  /** Feeds one socket read; returns the `data:` payloads completed by it, in order. */
  push(chunk: Buffer): string[] {
    const out: string[] = [];
    if (this.overflow) return out;
    this.scannedBytes += chunk.length;
    let start = 0;
    if (this.partBytes > 0) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) {
        this.keep(chunk, 0);
        return out;
      }
      if (this.partBytes + nl > this.maxLineBytes) return this.overflowed(out);
      this.parts.push(chunk.subarray(0, nl));
      const line = Buffer.concat(this.parts, this.partBytes + nl);
      this.copiedBytes += line.length;
      this.parts = [];
      this.partBytes = 0;
      const data = lineData(line, 0, line.length);
      if (data !== null) out.push(data);
      start = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl < 0) break;
      const data = lineData(chunk, start, nl);
      if (data !== null) out.push(data);
      start = nl + 1;
    }
    if (start < chunk.length) this.keep(chunk, start);
    return out;
  }

  /** Bytes of an unterminated last line (a stream cut mid-event). */
  get leftover(): number {
    return this.partBytes;
  }

  private keep(chunk: Buffer, from: number): void {
    const n = chunk.length - from;
    if (this.partBytes + n > this.maxLineBytes) {
      this.overflowed(null);
      return;
    }
    this.parts.push(Buffer.from(chunk.subarray(from)));
    this.partBytes += n;
    this.copiedBytes += n;
  }

  private overflowed(out: string[] | null): string[] {
    this.overflow = true;
    this.parts = [];
    this.partBytes = 0;
    return out ?? [];
  }
}

/** The `data:` field of the line buf[start, nl) (a trailing CR dropped), or null for any other line. */
function lineData(buf: Buffer, start: number, nl: number): string | null {
  let end = nl;
  if (end > start && buf[end - 1] === CR) end--;
  return end > start ? dataField(buf, start, end) : null;
}

// 'd','a','t','a',':'
function dataField(buf: Buffer, start: number, end: number): string | null {
  if (
    end - start < 5 ||
    buf[start] !== 0x64 ||
    buf[start + 1] !== 0x61 ||
    buf[start + 2] !== 0x74 ||
    buf[start + 3] !== 0x61 ||
    buf[start + 4] !== 0x3a
  )
    return null;
  let from = start + 5;
  if (buf[from] === 0x20) from++;
  return buf.toString('utf8', from, end);
}
