/**
 * The generated text of one stream, kept for the client-side token count at the end of the request.
 *
 * A stream brings hundreds of small chunk strings and lives for seconds, so an array of them survives
 * the young-generation GC and is copied and promoted chunk by chunk: on a busy replay that copying was
 * a third of every scavenge pause, and the pauses were the client's dispatch lateness. The chunks are
 * appended to one growing off-heap UTF-8 buffer instead, and each chunk string dies young. A high
 * surrogate that ends a chunk waits for the next one, so a pair split across two chunks is encoded
 * whole, as joining the strings would have kept it.
 */
export class StreamText {
  private buf: Buffer | null = null;
  private bytes = 0;
  private pendingHigh = '';

  append(chunk: string): void {
    let s = this.pendingHigh === '' ? chunk : this.pendingHigh + chunk;
    this.pendingHigh = '';
    const last = s.charCodeAt(s.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.pendingHigh = s.slice(-1);
      s = s.slice(0, -1);
    }
    if (s.length === 0) return;
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    const need = this.bytes + 3 * s.length;
    if (this.buf === null || need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(256, need, 2 * (this.buf?.length ?? 0)));
      this.buf?.copy(grown, 0, 0, this.bytes);
      this.buf = grown;
    }
    this.bytes += this.buf.write(s, this.bytes, 'utf8');
  }

  toString(): string {
    const text = this.buf === null ? '' : this.buf.toString('utf8', 0, this.bytes);
    return this.pendingHigh === '' ? text : text + this.pendingHigh;
  }
}
