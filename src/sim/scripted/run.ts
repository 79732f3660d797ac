import { createWriteStream } from 'node:fs';
import { InfxError } from '../../schema/errors.ts';
import type { ScriptedScript } from '../../schema/scripted-script.ts';
import type { ServerEvent } from './log.ts';
import { loadScript, parseScript } from './script.ts';
import { type ScriptedServer, type ScriptedServerStats, startScriptedServer } from './server.ts';

/** Running the scripted server as a process (`infx sim scripted`): script + flags, listen, serve until told. */

/** Command-line settings laid over the script file (or over the built-in defaults without one). */
export interface ScriptOverrides {
  burst?: boolean;
  serial?: boolean;
  ttftMs?: number;
  itlMs?: number;
  outputTokens?: number;
}

export interface ServeScriptedOptions extends ScriptOverrides {
  scriptPath?: string;
  port?: number;
  host?: string;
  /** Append one JSON line per generation request (its ServerEvent, every write included) to this file. */
  logFile?: string;
  /** See ScriptedServerOptions.spinMs. */
  spinMs?: number;
}

/** The server could not run: the port is taken, the host unknown, the log file unwritable. */
export class ServeError extends InfxError {
  constructor(message: string) {
    super(message, { lineByLine: true });
    this.name = 'ServeError';
  }
}

/** The script file (or `{}`) with the flag overrides applied and checked. */
export async function resolveScript(opts: ServeScriptedOptions): Promise<ScriptedScript> {
  const base = opts.scriptPath === undefined ? parseScript({}) : await loadScript(opts.scriptPath);
  const defaults: Record<string, unknown> = { ...base.defaults };
  if (opts.ttftMs !== undefined) defaults.ttftMs = opts.ttftMs;
  if (opts.itlMs !== undefined) defaults.itlMs = opts.itlMs;
  if (opts.outputTokens !== undefined) defaults.outputTokens = opts.outputTokens;
  return parseScript(
    {
      ...base,
      defaults,
      ...(opts.burst ? { burst: true } : {}),
      ...(opts.serial ? { serial: true } : {}),
    },
    'command-line flags',
  );
}

export interface ServeHooks {
  /** Called once the server listens, with its URL. */
  onListening(url: string): void;
  /** Called after onListening; the server closes when the promise settles. */
  until(): Promise<unknown>;
}

/** Starts the server, runs it until `hooks.until()` settles, closes it cleanly; returns its final stats. */
export async function serveScripted(
  opts: ServeScriptedOptions,
  hooks: ServeHooks,
): Promise<ScriptedServerStats> {
  const script = await resolveScript(opts);
  const sink = opts.logFile === undefined ? null : createWriteStream(opts.logFile, { flags: 'a' });
  const sinkError =
    sink === null
      ? null
      : new Promise<never>((_, reject) =>
          sink.once('error', (err) =>
            reject(new ServeError(`cannot write the log file ${opts.logFile}: ${err.message}`)),
          ),
        );
  sinkError?.catch(() => undefined); // still rejects the race below; never unhandled
  let server: ScriptedServer;
  try {
    server = await startScriptedServer(script, {
      port: opts.port ?? 0,
      host: opts.host ?? '127.0.0.1',
      log: sink === null ? 'requests' : 'writes',
      keepLog: false,
      ...(opts.spinMs === undefined ? {} : { spinMs: opts.spinMs }),
      onEvent: sink === null ? undefined : (ev: ServerEvent) => sink.write(`${JSON.stringify(ev)}\n`),
    });
  } catch (err) {
    sink?.destroy();
    const e = err as NodeJS.ErrnoException;
    const where = `${opts.host ?? '127.0.0.1'}:${opts.port ?? 0}`;
    if (e.code === 'EADDRINUSE') throw new ServeError(`cannot listen on ${where}: the port is in use`);
    if (e.code === 'EACCES') throw new ServeError(`cannot listen on ${where}: permission denied`);
    if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') {
      throw new ServeError(`cannot listen on ${where}: no such local address`);
    }
    throw err;
  }
  try {
    hooks.onListening(server.url);
    await (sinkError === null ? hooks.until() : Promise.race([hooks.until(), sinkError]));
  } finally {
    await server.close();
    if (sink !== null) await new Promise<void>((resolve) => sink.end(() => resolve()));
  }
  return server.stats();
}
