/**
 * The slash commands a pull-request comment may hold (changelog-pr-spec §5.1–§5.2, §6; the addendum's §6:
 * `/use <run>` is the newer name of a pinned `/reuse-sweep-run <run>`). A command is a line of its own,
 * leading and trailing blanks aside; one mentioned inside a sentence is not a command. The last command
 * line of a comment decides, as the reference reads its reuse authorization.
 */

export type SlashCommand =
  | { kind: 'stage'; run: string | null }
  | { kind: 'reuse'; run: string | null; spelled: '/reuse-sweep-run' | '/use' };

export type ParsedComment =
  | { kind: 'none' }
  | { kind: 'command'; command: SlashCommand; line: number }
  | { kind: 'usage'; name: string; message: string; line: number };

const NAMES = ['/stage-results', '/reuse-sweep-run', '/use'] as const;
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const USAGE: Record<(typeof NAMES)[number], string> = {
  '/stage-results':
    'Usage: `/stage-results` (the newest stageable run of this PR) or `/stage-results <run-id>`.',
  '/reuse-sweep-run':
    'Usage: `/reuse-sweep-run` (the newest reusable run of this PR) or `/reuse-sweep-run <run-id>`.',
  '/use': 'Usage: `/use <run-id>`: the run whose results this PR merges with.',
};

function parseLine(text: string): { name: (typeof NAMES)[number]; args: string[] } | null {
  const words = text.trim().split(/\s+/);
  const name = NAMES.find((n) => n === words[0]);
  return name === undefined ? null : { name, args: words.slice(1) };
}

export function parseComment(body: string): ParsedComment {
  const lines = body.split(/\r?\n/);
  let inFence = false;
  let found: ParsedComment = { kind: 'none' };
  lines.forEach((raw, i) => {
    // A command quoted in a code block or a reply quote is shown, not given.
    if (/^\s*(```|~~~)/.test(raw)) inFence = !inFence;
    if (inFence || /^\s*>/.test(raw)) return;
    const cmd = parseLine(raw);
    if (!cmd) return;
    const line = i + 1;
    const [run, ...extra] = cmd.args;
    const bad =
      extra.length > 0 ||
      (run !== undefined && !RUN_ID.test(run)) ||
      (cmd.name === '/use' && run === undefined);
    if (bad) {
      found = { kind: 'usage', name: cmd.name, message: USAGE[cmd.name], line };
      return;
    }
    found = {
      kind: 'command',
      line,
      command:
        cmd.name === '/stage-results'
          ? { kind: 'stage', run: run ?? null }
          : { kind: 'reuse', run: run ?? null, spelled: cmd.name },
    };
  });
  return found;
}

/** Who may give commands: the repository's owners, organisation members and collaborators (§5.2). */
export const COMMAND_ASSOCIATIONS: readonly string[] = ['OWNER', 'MEMBER', 'COLLABORATOR'];
