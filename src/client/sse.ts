/**
 * Incremental Server-Sent-Events splitter over raw socket bytes. It keeps no limit on line length (a
 * 64 KB line limit is what collapses long-context runs in other clients) and never decodes more than the
 * bytes of complete lines. Only `data:` fields matter for OpenAI streams; comments and other fields are
 * skipped as the SSE format says.
 */
const NL = 0x0a;
const CR = 0x0d;

export class SseSplitter {
  private pending: Buffer | null = null;

  /** Feeds one socket read; returns the `data:` payloads completed by it, in order. */
  push(chunk: Buffer): string[] {
    let buf = chunk;
    if (this.pending) {
      buf = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    const out: string[] = [];
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(NL, start);
      if (nl < 0) break;
      let end = nl;
      if (end > start && buf[end - 1] === CR) end--;
      if (end > start) {
        const data = dataField(buf, start, end);
        if (data !== null) out.push(data);
      }
      start = nl + 1;
    }
    // Copied: the caller may reuse the read buffer.
    if (start < buf.length) this.pending = Buffer.from(buf.subarray(start));
    return out;
  }

  /** Bytes of an unterminated last line (a stream cut mid-event). */
  get leftover(): number {
    return this.pending?.length ?? 0;
  }
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
