import { type Command, InvalidArgumentError } from 'commander';
import { serveScripted } from '../sim/scripted/run.ts';
import { parseIntArg, reportError } from './common.ts';
import type { CliIO } from './io.ts';
import { untilSignal } from './signals.ts';
import { registerSimPredict } from './sim-predict.ts';
import { registerSimServe } from './sim-serve.ts';

/** `infx sim …`: simulated inference servers. `infx sim scripted`: the scripted OpenAI-compatible server. */

interface ScriptedFlags {
  script?: string;
  port: number;
  host: string;
  burst?: boolean;
  serial?: boolean;
  ttftMs?: number;
  itlMs?: number;
  outputTokens?: number;
  logFile?: string;
  spinMs?: number;
}

function parseMs(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError(`expected milliseconds >= 0, got '${value}'`);
  }
  return n;
}

function parsePort(value: string): number {
  const n = parseIntArg(value);
  if (n < 0 || n > 65535) throw new InvalidArgumentError(`expected a port 0..65535, got '${value}'`);
  return n;
}

function parseCount(value: string): number {
  const n = parseIntArg(value);
  if (n < 0) throw new InvalidArgumentError(`expected a count >= 0, got '${value}'`);
  return n;
}

export function registerSim(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const sim = program.command('sim').description('simulated inference servers');
  registerSimServe(sim, io, setExit);
  registerSimPredict(sim, io, setExit);
  sim
    .command('scripted')
    .description(
      'serve OpenAI-compatible completions whose timing and faults follow a script; prints ' +
        '"listening on URL" and runs until SIGINT/SIGTERM',
    )
    .option('--script <file>', 'script file (JSON, or YAML by extension); default: the built-in defaults')
    .option('--port <port>', 'port to listen on (0: any free port)', parsePort, 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--burst', 'max speed: ignore the timing and write every response as fast as possible')
    .option('--serial', 'serve one generation request at a time, in arrival order')
    .option('--ttft-ms <ms>', 'time to first token of every request (overrides the script defaults)', parseMs)
    .option('--itl-ms <ms>', 'time between token chunks (overrides the script defaults)', parseMs)
    .option('--output-tokens <n>', 'tokens per response (default: the request max_tokens)', parseCount)
    .option('--log-file <file>', 'append one JSON line per request: its timing and every write')
    .option('--spin-ms <ms>', 'poll the clock for the last MS before each write (default 1)', parseMs)
    .action(async (flags: ScriptedFlags) => {
      try {
        const stats = await serveScripted(
          {
            scriptPath: flags.script,
            port: flags.port,
            host: flags.host,
            burst: flags.burst,
            serial: flags.serial,
            ttftMs: flags.ttftMs,
            itlMs: flags.itlMs,
            outputTokens: flags.outputTokens,
            logFile: flags.logFile,
            spinMs: flags.spinMs,
          },
          {
            onListening: (url) => io.stdout(`listening on ${url}\n`),
            until: () => untilSignal(),
          },
        );
        const faults = Object.values(stats.faults).reduce((a, b) => a + b, 0);
        io.stderr(
          `scripted server closed: ${stats.requests} requests, ${stats.ok} ok, ${faults} faulted, ` +
            `${stats.badRequests} bad, ${stats.clientClosed} closed by the client\n`,
        );
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
