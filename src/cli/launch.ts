/** What the process entries (bin.ts, sim-serve-bin.ts) do around a command line: exit codes, a broken pipe. */
export function launch(run: (argv: readonly string[]) => Promise<number>): void {
  // `infx matrix … | head` closes the pipe early; that is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });

  run(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        `infx: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.stderr.write('This is a bug in infx; please report it with the command line that caused it.\n');
      process.exitCode = 70;
    },
  );
}
