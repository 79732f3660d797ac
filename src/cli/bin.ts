import { run } from './main.ts';

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
