import yaml from 'js-yaml';

/**
 * The pieces every workflow `infx ci workflow` writes is made of: shell quoting, the pinned actions, the
 * steps that put infx on a runner, and the YAML text (js-yaml with fixed settings, so the same options give
 * the same bytes).
 */

/** Actions by full version tag (what `uses:` names). */
export const ACTIONS = {
  checkout: 'actions/checkout@v4',
  setupNode: 'actions/setup-node@v4',
  upload: 'actions/upload-artifact@v4',
  download: 'actions/download-artifact@v4',
} as const;

export type Step = Record<string, unknown>;
export type Job = Record<string, unknown>;

/** One word for bash: bare when it is plainly safe, else in single quotes. */
export function shQuote(word: string): string {
  if (/^[A-Za-z0-9._/=+:@%^,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export const shWords = (words: readonly string[]): string => words.map(shQuote).join(' ');

/** A `run:` script: its lines joined, ending in a newline (a literal block in the YAML). */
export const script = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** `if [ "$VAR" = true ]; then args+=(FLAG); fi`: a flag the gate turned on, added without word splitting. */
export const flagIf = (envVar: string, flag: string): string =>
  `if [ "$${envVar}" = true ]; then args+=(${flag}); fi`;

export interface InstallOptions {
  install: string | null;
  nodeVersion: string;
}

/** Checkout (at `ref` when given, whole history when `history`), Node.js and the install command. */
export function setupSteps(o: InstallOptions, checkout: { ref?: string; history?: boolean } = {}): Step[] {
  const withs: Record<string, unknown> = {};
  if (checkout.ref) withs.ref = checkout.ref;
  if (checkout.history) withs['fetch-depth'] = 0;
  withs['persist-credentials'] = false;
  const steps: Step[] = [
    { name: 'Check out', uses: ACTIONS.checkout, with: withs },
    { name: 'Set up Node.js', uses: ACTIONS.setupNode, with: { 'node-version': o.nodeVersion } },
  ];
  if (o.install) steps.push({ name: 'Install infx', run: script(o.install) });
  steps.push({ name: 'infx version', run: script('infx --version') });
  return steps;
}

/** The YAML text of a workflow: a header comment, then the document, long lines never folded. */
export function workflowText(header: readonly string[], doc: Record<string, unknown>): string {
  const body = yaml.dump(doc, { lineWidth: -1, noRefs: true, sortKeys: false });
  return `${header.map((l) => (l ? `# ${l}` : '#')).join('\n')}\n${body}`;
}

/** The runs-on list of a job: `self-hosted` first, then the labels, without repeats. */
export function runsOn(labels: readonly string[]): string[] {
  return [...new Set(['self-hosted', ...labels])];
}
