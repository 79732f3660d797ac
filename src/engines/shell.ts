/** POSIX shell quoting, for commands people paste and for bash -c scripts. */

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word as the shell reads it back: bare when safe, else single-quoted ('\'' for a quote). */
export function shellQuote(word: string): string {
  if (word.includes('\0'))
    throw new Error(`cannot pass a NUL byte to a shell command: ${JSON.stringify(word)}`);
  if (SAFE.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export const shellJoin = (argv: readonly string[]) => argv.map(shellQuote).join(' ');
