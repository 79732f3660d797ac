import { ChangelogError } from './errors.ts';
import { ENTRY_START, lineAt } from './parse-file.ts';

/**
 * The byte-level append contract (changelog-pr-spec §1.5): history stays byte for byte, new entries
 * go at the end with exactly one empty line before each, and a link correction touches its `pr-link`
 * line alone. Each refusal carries the head's line at fault and what to restore (ChangelogError.line,
 * .hint); the message is the reference's.
 */

function refuse(message: string, head: Buffer, at: number, hint: string): never {
  throw new ChangelogError(message, lineAt(head, at), hint);
}

/** Offsets of the lines of `head` that start an entry. */
function entryOffsets(head: Buffer): number[] {
  const out: number[] = [];
  const marker = Buffer.from(ENTRY_START);
  for (let at = 0; at < head.length; ) {
    if (head.subarray(at, at + marker.length).equals(marker)) out.push(at);
    const nl = head.indexOf(0x0a, at);
    if (nl < 0) break;
    at = nl + 1;
  }
  return out;
}

function splitLines(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < b.length) {
    const nl = b.indexOf(0x0a, at);
    const end = nl < 0 ? b.length : nl + 1;
    out.push(b.subarray(at, end));
    at = end;
  }
  return out;
}

export function validateRawChange(base: Buffer, head: Buffer, additions: number, corrections: number): void {
  if (additions > 0) {
    const common = Math.min(base.length, head.length);
    let i = 0;
    while (i < common && base[i] === head[i]) i++;
    if (i < base.length)
      refuse(
        'appended entries changed historical perf-changelog.yaml bytes; restore the base file byte-for-byte and append at the end',
        head,
        i,
        "restore this line to the base's bytes (git show BASE:perf-changelog.yaml), whitespace included",
      );
    const suffix = head.subarray(base.length);
    const endsBlank = base.length >= 2 && base[base.length - 1] === 0x0a && base[base.length - 2] === 0x0a;
    const lead = Buffer.from(endsBlank ? ENTRY_START : `\n${ENTRY_START}`);
    if (!suffix.subarray(0, lead.length).equals(lead))
      refuse(
        'new changelog entries must be separated from history by one empty line and appended at the end',
        head,
        base.length,
        endsBlank
          ? 'start the first new entry right here: the history already ends with an empty line'
          : 'leave exactly one empty line between the last historical entry and the first new one',
      );
    const starts = entryOffsets(head).slice(-additions);
    for (const at of starts.slice(1)) {
      const ok =
        at >= 2 && head[at - 1] === 0x0a && head[at - 2] === 0x0a && !(at >= 3 && head[at - 3] === 0x0a);
      if (!ok)
        refuse(
          'appended changelog entries must have exactly one empty separator line',
          head,
          at,
          'put exactly one empty line before this entry',
        );
    }
    if (head.length >= 2 && head[head.length - 1] === 0x0a && head[head.length - 2] === 0x0a)
      refuse(
        'the final appended changelog entry must end with one newline',
        head,
        head.length - 1,
        'delete the empty lines at the end of the file',
      );
    return;
  }
  if (corrections > 0) {
    const b = splitLines(base);
    const h = splitLines(head);
    if (b.length !== h.length)
      throw new ChangelogError('pr-link corrections may not add or delete lines', null);
    let changed = 0;
    let at = 0;
    for (let n = 0; n < b.length; n++) {
      const x = b[n] as Buffer;
      const y = h[n] as Buffer;
      if (!x.equals(y)) {
        const link = (l: Buffer) => l.toString('utf8').startsWith('  pr-link:') && l[l.length - 1] === 0x0a;
        if (!link(x) || !link(y))
          refuse(
            `historical bytes changed outside a pr-link line at line ${n + 1}`,
            head,
            at,
            "restore the line to the base's bytes; only a pr-link line may change",
          );
        changed++;
      }
      at += y.length;
    }
    if (changed !== corrections)
      throw new ChangelogError(`expected ${corrections} changed pr-link line(s), found ${changed}`);
    return;
  }
  if (!base.equals(head)) {
    let i = 0;
    while (i < base.length && i < head.length && base[i] === head[i]) i++;
    refuse(
      'changelog diff has no appended entry or pr-link correction; historical whitespace and formatting are immutable',
      head,
      i,
      "restore the file to the base's bytes",
    );
  }
}
