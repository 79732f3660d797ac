import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { portArg } from './common.ts';
import { reportError } from './errors.ts';
import { DB_FLAG_HELP } from './ingest.ts';
import type { CliIO } from './io.ts';

/** `infx serve`: the dashboard and its JSON API (src/web/server.ts) until Ctrl-C or SIGTERM. */

interface ServeFlags {
  db?: string;
  port: number;
  host: string;
  runs?: string[];
  allowedHost?: string[];
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerServe(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description(
      'serve the dashboard (inference view, runs, compare) and its JSON API under /api/ from the results database',
    )
    .option('--db <url>', DB_FLAG_HELP)
    .option('--port <port>', 'port to listen on (0: any free port)', portArg, 8080)
    .option('--host <address>', 'address to listen on (0.0.0.0: every interface)', '127.0.0.1')
    .option(
      '--runs <dir>',
      'folder holding run directories (<dir>/<run-id>), for engine commands, records and server logs; repeatable (default: ./runs when it exists)',
      collect,
    )
    .option(
      '--allowed-host <name>',
      'also answer requests whose Host is this name (e.g. the machine name clients use with --host 0.0.0.0); repeatable. Without it only 127.0.0.1, localhost and [::1] are answered (DNS rebinding)',
      collect,
    )
    .action(async (flags: ServeFlags) => {
      const [{ defaultDbUrl, parseStoreUrl }, { listenErrorMessage, startWebServer }] = await Promise.all([
        import('../store/db.ts'),
        import('../web/server.ts'),
      ]);
      const db = flags.db ?? defaultDbUrl();
      let server: Awaited<ReturnType<typeof startWebServer>>;
      try {
        const parsed = parseStoreUrl(db);
        if (parsed.backend === 'sqlite' && parsed.path !== ':memory:' && !existsSync(parsed.path)) {
          io.stderr(
            `error: there is no results database at ${parsed.path}: store runs first with ` +
              '`infx ingest runs/<run-id>` (or name the database with --db)\n',
          );
          setExit(1);
          return;
        }
        for (const dir of flags.runs ?? [])
          if (!existsSync(dir))
            io.stderr(`note: --runs ${dir}: no such folder; its runs' files will not be served\n`);
        server = await startWebServer({
          db,
          port: flags.port,
          host: flags.host,
          ...(flags.runs ? { runsDirs: flags.runs } : {}),
          allowedHosts: flags.allowedHost ?? [],
          log: (line) => io.stderr(`${line}\n`),
        });
      } catch (err) {
        const listen = listenErrorMessage(err, flags.host, flags.port);
        if (listen) {
          io.stderr(`error: ${listen}\n`);
          setExit(1);
          return;
        }
        setExit(reportError(err, io));
        return;
      }
      io.stdout(`dashboard at ${server.url}\n`);
      if (!['127.0.0.1', 'localhost', '::1'].includes(flags.host) && !flags.allowedHost?.length)
        io.stderr(
          `note: listening on ${flags.host}, but only requests for 127.0.0.1, localhost and [::1] are answered; ` +
            'add --allowed-host NAME for each name clients use to reach this machine\n',
        );
      await new Promise<void>((done) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          done();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await server.close();
      io.stderr('dashboard stopped\n');
    });
}
