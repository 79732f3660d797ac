import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The delivery ids seen (X-GitHub-Delivery), so a replayed delivery (GitHub's "Redeliver", a retry after a
 * timeout, an attacker replaying a captured request with its valid signature) is acknowledged and ignored.
 * Kept in memory and, with a file, across restarts: one id a line, appended; the newest `limit` are kept
 * and the file is rewritten when it grows past twice that. A delivery whose handling failed is forgotten
 * (a `-id` line), so the operator's "Redeliver" of it is handled again.
 */
export class DeliveryLog {
  private readonly seen = new Set<string>();
  private lines = 0;

  constructor(
    private readonly file: string | null,
    private readonly limit = 10_000,
  ) {
    if (file === null) return;
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(dirname(file), { recursive: true });
    }
    const lines = text.split('\n').filter((l) => /^-?[\w-]{1,100}$/.test(l));
    for (const l of lines.slice(-2 * limit))
      if (l.startsWith('-')) this.seen.delete(l.slice(1));
      else this.seen.add(l);
    while (this.seen.size > limit) this.seen.delete(this.seen.values().next().value as string);
    this.lines = lines.length;
  }

  /** True the first time an id is seen (and records it), false for a replay. */
  admit(id: string): boolean {
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    if (this.seen.size > this.limit) {
      const oldest = this.seen.values().next().value as string;
      this.seen.delete(oldest);
    }
    if (this.file !== null) {
      if (this.lines >= 2 * this.limit) {
        writeFileSync(this.file, `${[...this.seen].join('\n')}\n`);
        this.lines = this.seen.size;
      } else {
        appendFileSync(this.file, `${id}\n`);
        this.lines++;
      }
    }
    return true;
  }

  /** The delivery failed: a redelivery of it is admitted again. */
  forget(id: string): void {
    if (!this.seen.delete(id) || this.file === null) return;
    appendFileSync(this.file, `-${id}\n`);
    this.lines++;
  }
}
