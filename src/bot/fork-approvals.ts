import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * What a maintainer approved on a fork PR by applying its sweep label: that head commit only
 * (changelog-pr-spec §3.6). A push moves the head and withdraws the approval until the label is applied
 * again. Kept in the bot's state directory (one JSON file, replaced atomically), so a restart keeps it.
 */

export interface ForkApproval {
  /** The head the bot last saw. */
  head: string;
  /** Whether a maintainer applied a sweep label at that head. */
  approved: boolean;
}

export class ForkApprovals {
  private readonly byPr: Map<string, ForkApproval>;

  constructor(private readonly file: string | null) {
    this.byPr = new Map();
    if (file === null) return;
    try {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, ForkApproval>;
      for (const [k, v] of Object.entries(doc))
        if (typeof v?.head === 'string' && typeof v.approved === 'boolean') this.byPr.set(k, v);
    } catch (err) {
      // A missing file is a fresh bot; an unreadable one is started over (approvals are given again).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && !(err instanceof SyntaxError)) throw err;
    }
  }

  get(pr: string): ForkApproval | null {
    return this.byPr.get(pr) ?? null;
  }

  set(pr: string, a: ForkApproval): void {
    this.byPr.set(pr, a);
    if (this.file === null) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(Object.fromEntries(this.byPr), null, 1)}\n`);
    renameSync(tmp, this.file);
  }
}
