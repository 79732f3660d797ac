import type { Command } from 'commander';
import { INFX_VERSION } from '../schema/version.ts';
import { type CliIO, processIO } from './io.ts';
import { hoistCatalogFlag, newProgram, parseProgram } from './program.ts';

export const VERSION = INFX_VERSION;

type Register = (program: Command, io: CliIO, setExit: (code: number) => void) => void;

/**
 * The commands, in the order `infx --help` lists them, each loaded only when needed: a command line that
 * names one loads that command's module (and what it imports) alone; anything else (`--help`, `help`, a
 * mistyped name that deserves a suggestion) loads them all.
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['validate', async () => (await import('./validate.ts')).registerValidate],
  ['matrix', async () => (await import('./matrix.ts')).registerMatrix],
  ['changelog', async () => (await import('./changelog.ts')).registerChangelog],
  ['schema', async () => (await import('./schema.ts')).registerSchema],
  [
    'bench',
    async () => {
      const { registerBench } = await import('./bench.ts');
      return (program, io, setExit) => registerBench(program, io, setExit, VERSION);
    },
  ],
  ['sim', async () => (await import('./sim.ts')).registerSim],
  ['check', async () => (await import('./check.ts')).registerCheck],
  ['review', async () => (await import('./review.ts')).registerReview],
  ['signoff', async () => (await import('./signoff.ts')).registerSignoff],
  ['recipe', async () => (await import('./recipe.ts')).registerRecipe],
  [
    'sweep',
    async () => {
      const { registerSweep } = await import('./sweep.ts');
      return (program, io, setExit) => registerSweep(program, io, setExit, VERSION);
    },
  ],
  ['ingest', async () => (await import('./ingest.ts')).registerIngest],
  ['reuse', async () => (await import('./runs.ts')).registerReuse],
  ['stage', async () => (await import('./runs.ts')).registerStage],
  ['unstage', async () => (await import('./runs.ts')).registerUnstage],
  ['audit', async () => (await import('./runs.ts')).registerAudit],
  ['verify', async () => (await import('./verify.ts')).registerVerify],
  ['compare', async () => (await import('./compare.ts')).registerCompare],
  ['plot', async () => (await import('./plot.ts')).registerPlot],
  ['serve', async () => (await import('./serve.ts')).registerServe],
  ['router', async () => (await import('./router.ts')).registerRouter],
  ['bot', async () => (await import('./bot.ts')).registerBot],
  [
    'demo',
    async () => {
      const { registerDemo } = await import('./demo.ts');
      return (program, io, setExit) => registerDemo(program, io, setExit, VERSION);
    },
  ],
  ['trace', async () => (await import('./trace.ts')).registerTrace],
  ['eval', async () => (await import('./eval.ts')).registerEval],
  ['ci', async () => (await import('./ci.ts')).registerCi],
];

/**
 * The command a command line names (after the program's own --catalog), if it is one of ours; null when it
 * needs none (`--version` is answered before any command is looked at).
 */
export function commandOf(argv: readonly string[]): string | null | undefined {
  const args = hoistCatalogFlag(argv);
  let i = 0;
  while (args[i] === '--catalog' || args[i]?.startsWith('--catalog=')) i += args[i] === '--catalog' ? 2 : 1;
  const name = args[i];
  if (name === '--version' || name === '-V') return null;
  return COMMANDS.some(([n]) => n === name) ? name : undefined;
}

/** Runs one infx command line and returns its exit code; never calls process.exit itself. */
export async function run(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const program = newProgram(io, VERSION);
  const name = commandOf(argv);
  const chosen = name === undefined ? COMMANDS : COMMANDS.filter(([n]) => n === name);
  const registers = await Promise.all(chosen.map(([, load]) => load()));
  for (const register of registers) register(program, io, setExit);
  return parseProgram(program, argv, io, () => exitCode);
}
