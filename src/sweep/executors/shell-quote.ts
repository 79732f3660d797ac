/**
 * POSIX shell quoting for generated scripts (sbatch scripts, recipes): every word comes back as exactly one
 * argument, byte for byte, with no expansion of any kind.
 */

/** Characters that never need quoting in any word position of bash (no globs, no expansion, no ~, no =). */
const SAFE = /^[A-Za-z0-9_@%+,./:-]+$/;

/** One argument quoted for bash/sh: left bare when safe, else single-quoted with each `'` written as `'\''`. */
export function shellQuote(arg: string): string {
  if (arg.includes('\0'))
    throw new Error(`cannot pass a NUL byte to a shell command: ${JSON.stringify(arg)}`);
  if (SAFE.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** An argv as one shell command line. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
