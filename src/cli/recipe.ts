import { resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CONTAINER_RUNTIMES, type ContainerRuntime } from '../schema/engine-launch.ts';
import { numberIn, parseIntArg, positiveInt } from './common.ts';
import { reportError } from './errors.ts';
import type { CliIO } from './io.ts';

/** `infx recipe render`: the exact engine command lines of a matrix row (recipes/*.sh). */

interface RenderFlags {
  point: string;
  conc?: number;
  container: ContainerRuntime;
  port: number;
  host: string;
  connectHost?: string;
  acceptance: 'golden' | 'real' | number;
  draftTokens?: number;
  draftModel?: string;
  maxModelLen?: number;
  gpuMemoryUtilization: number;
  gpusPerNode: number;
  workDir: string;
  recipesDir?: string;
  devices?: string[];
  format: 'text' | 'json';
}

function parseAcceptance(value: string): 'golden' | 'real' | number {
  if (value === 'golden' || value === 'real') return value;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 1)
    throw new InvalidArgumentError(`must be golden, real or an acceptance length >= 1, got '${value}'`);
  return n;
}

function parseDevices(value: string): string[] {
  const ids = value.split(',').map((s) => s.trim());
  if (ids.some((id) => !/^[A-Za-z0-9-]+$/.test(id)))
    throw new InvalidArgumentError(`must be GPU ids (indices or UUIDs) separated by commas, got '${value}'`);
  return ids;
}

function parsePort(value: string): number {
  const n = parseIntArg(value);
  if (n < 1 || n > 65535) throw new InvalidArgumentError(`must be a TCP port (1-65535), got '${value}'`);
  return n;
}

export function registerRecipe(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const recipe = program
    .command('recipe')
    .description('engine recipes (recipes/*.sh): how real engines start');
  recipe
    .command('render')
    .description(
      'print the server command lines of a matrix row for vLLM, SGLang or TensorRT-LLM (processes in start ' +
        'order, the last one is the front the client drives)',
    )
    .requiredOption('--point <row.json>', 'one matrix row as printed by infx matrix')
    .option('--conc <n>', "concurrency to render for (default: the row's first)", positiveInt)
    .addOption(
      new Option('--container <runtime>', 'wrap each process in a container runtime')
        .choices(CONTAINER_RUNTIMES)
        .default('none'),
    )
    .option('--port <port>', 'port of the front; further processes get the next ones', parsePort, 8000)
    .option('--host <host>', 'address the engines listen on', '0.0.0.0')
    .option('--connect-host <host>', 'address the client and router reach processes at (default 127.0.0.1)')
    .option(
      '--acceptance <mode>',
      'speculative acceptance: golden (agentic rows pinned to the golden length, as the reference), real, or a length',
      parseAcceptance,
      'golden',
    )
    .option('--draft-tokens <n>', 'speculative draft tokens per step (default 3)', positiveInt)
    .option('--draft-model <name>', 'draft checkpoint for EAGLE3/DSpark/draft-model rows')
    .option('--max-model-len <n>', 'context length (default: the row, or the model native one)', positiveInt)
    .option(
      '--gpu-memory-utilization <f>',
      'fraction of GPU memory the engine may use',
      numberIn(0, 1, true),
      0.9,
    )
    .option('--gpus-per-node <n>', 'GPUs per node, to count the nodes a worker spans', positiveInt, 8)
    .option('--work-dir <dir>', 'where engine files are written (mounted into containers)', '.infx/work')
    .option(
      '--devices <ids>',
      'host GPU ids the processes are pinned to, split in start order, e.g. 0,1 (default: every GPU)',
      parseDevices,
    )
    .option('--recipes-dir <dir>', 'recipes folder (default: the package recipes/, or INFX_RECIPES_DIR)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (flags: RenderFlags) => {
      const [{ readMatrixRowFile, pickConc }, { renderRecipeWithWarnings }, { formatLaunchText }] =
        await Promise.all([
          import('../engines/point-file.ts'),
          import('../engines/recipe.ts'),
          import('../engines/render-text.ts'),
        ]);
      try {
        const row = await readMatrixRowFile(flags.point);
        const { conc, note } = pickConc(row, flags.conc);
        if (note) io.stderr(`note: ${note}\n`);
        let next = flags.port;
        const { launch, warnings } = await renderRecipeWithWarnings(row, {
          conc,
          allocatePort: () => next++,
          workDir: resolve(flags.workDir),
          host: flags.host,
          container: flags.container,
          acceptance: flags.acceptance,
          gpuMemoryUtilization: flags.gpuMemoryUtilization,
          gpusPerNode: flags.gpusPerNode,
          ...(flags.connectHost !== undefined ? { connectHost: flags.connectHost } : {}),
          ...(flags.draftTokens !== undefined ? { draftTokens: flags.draftTokens } : {}),
          ...(flags.draftModel !== undefined ? { draftModel: flags.draftModel } : {}),
          ...(flags.maxModelLen !== undefined ? { maxModelLen: flags.maxModelLen } : {}),
          ...(flags.devices !== undefined ? { devices: flags.devices } : {}),
          ...(flags.recipesDir !== undefined ? { recipesDir: resolve(flags.recipesDir) } : {}),
        });
        for (const w of warnings) io.stderr(`warning: ${w}\n`);
        io.stdout(
          flags.format === 'json' ? `${JSON.stringify(launch, null, 2)}\n` : formatLaunchText(launch),
        );
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
