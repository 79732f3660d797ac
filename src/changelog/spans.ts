import { ChangelogError } from './errors.ts';

/**
 * The raw byte blocks of a changelog's entries (changelog-pr-spec §4.1), so merge tooling rewrites one
 * entry's link and leaves every other byte as it was: a block starts at a line beginning
 * `- config-keys:` and runs to the next one; its content ends after its last line holding anything but
 * whitespace.
 */

const ENTRY_START = '- config-keys:';
const LINK_LINE = '  pr-link:';

export interface EntrySpan {
  start: number;
  /** After the newline of the block's last non-blank line (or the block's end without one). */
  contentEnd: number;
  end: number;
}

/** Offsets of every line start of `text`. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0 && i + 1 < text.length; i = text.indexOf('\n', i + 1))
    starts.push(i + 1);
  return starts;
}

export function entrySpans(text: string, parsedEntries: number): EntrySpan[] {
  const starts = lineStarts(text).filter((s) => text.startsWith(ENTRY_START, s));
  if (starts.length !== parsedEntries)
    throw new ChangelogError('could not map parsed changelog entries to raw byte spans');
  return starts.map((start, k) => {
    const end = starts[k + 1] ?? text.length;
    let contentEnd = end;
    // Back over trailing lines that are empty or whitespace only.
    for (;;) {
      const body = text.slice(start, contentEnd);
      const lastBreak = body.endsWith('\n')
        ? body.lastIndexOf('\n', body.length - 2)
        : body.lastIndexOf('\n');
      const lastLine = body.slice(lastBreak + 1);
      if (lastBreak < 0 || lastLine.trim() !== '') break;
      contentEnd = start + lastBreak + 1;
    }
    return { start, contentEnd, end };
  });
}

/** The block with its first `  pr-link:` line replaced by `  pr-link: <link>`. */
export function withLink(block: string, link: string): string {
  const lines = block.split('\n');
  const i = lines.findIndex((l) => l.startsWith(LINK_LINE));
  if (i < 0) throw new ChangelogError('could not locate exactly one pr-link line in a changelog entry');
  lines[i] = `${LINK_LINE} ${link}`;
  return lines.join('\n');
}
