/**
 * The README's shell blocks, as the README test runs them: every ```sh (or bash/shell) fence, with the
 * directive of an HTML comment on the line right above it:
 *   <!-- readme-test: setup -->              the set-up block (`npm ci && …`): CI itself runs it (.ci/run)
 *   <!-- readme-test: exit N -->             the block shows an error: it must exit with N
 *   <!-- readme-test: until /REGEX/ -->      a server: it must print a line matching REGEX, then it is stopped
 * A block without one must exit 0.
 */

export type Directive =
  | { kind: 'run'; exit: number }
  | { kind: 'setup' }
  | { kind: 'until'; pattern: RegExp };

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The heading the block is under, for test names. */
  section: string;
  text: string;
  directive: Directive;
}

const FENCE = /^(`{3,}|~{3,})\s*([\w+-]*)/;
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const DIRECTIVE = /^<!--\s*readme-test:\s*(.*?)\s*-->\s*$/;

function parseDirective(text: string, line: number): Directive {
  if (text === 'setup') return { kind: 'setup' };
  const exit = /^exit (\d+)$/.exec(text);
  if (exit) return { kind: 'run', exit: Number(exit[1]) };
  const until = /^until \/(.+)\/$/.exec(text);
  if (until) return { kind: 'until', pattern: new RegExp(until[1] as string) };
  throw new Error(
    `README.md:${line}: unknown readme-test directive '${text}' (setup, exit N, until /REGEX/)`,
  );
}

export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const out: ShellBlock[] = [];
  let section = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const heading = /^#{1,6}\s+(.*)$/.exec(l);
    if (heading) section = heading[1] as string;
    const fence = FENCE.exec(l);
    if (!fence) continue;
    const close = new RegExp(`^${(fence[1] as string)[0]}{${(fence[1] as string).length},}\\s*$`);
    let j = i + 1;
    while (j < lines.length && !close.test(lines[j] as string)) j++;
    if (SHELL.has(fence[2] as string)) {
      const above = DIRECTIVE.exec(lines[i - 1] ?? '');
      out.push({
        line: i + 1,
        section,
        text: lines.slice(i + 1, j).join('\n'),
        directive: above ? parseDirective(above[1] as string, i) : { kind: 'run', exit: 0 },
      });
    }
    i = j;
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
