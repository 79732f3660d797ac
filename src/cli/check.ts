import { type Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_RUNNER_CONFIG } from '../matrix/build.ts';
import { reportError } from './common.ts';
import type { CliIO } from './io.ts';

/** `infx check`: feasibility lint of every point of the configs (memory per rank, KV, fan-out, images). */

function parseFraction(value: string): number {
  const v = Number(value);
  if (value.trim() === '' || !Number.isFinite(v) || v <= 0 || v > 1) {
    throw new InvalidArgumentError(`must be a number in (0, 1], got '${value}'`);
  }
  return v;
}

function parseGiB(value: string): number {
  const v = Number(value);
  if (value.trim() === '' || !Number.isFinite(v) || v < 0) {
    throw new InvalidArgumentError(`must be a number of GiB >= 0, got '${value}'`);
  }
  return v;
}

interface CheckFlags {
  configFiles: string[];
  runnerConfig: string;
  configKeys?: string[];
  gpuMemoryUtilization: number;
  kvCacheDtype: 'auto' | 'bf16' | 'fp8';
  reserveGib?: number;
  engramOffload?: boolean;
  format: 'text' | 'json';
  cache: boolean;
}

export function registerCheck(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('check')
    .description(
      'check that every point fits before GPU time is spent: weights and KV per rank against memory × ' +
        'utilization, agentic max-num-seqs headroom, pinned images (exit 1 on any error)',
    )
    .requiredOption('--config-files <files...>', 'master config YAML files, merged in the order given')
    .option('--runner-config <path>', 'runner config (labels and hardware)', DEFAULT_RUNNER_CONFIG)
    .option('--config-keys <keys...>', 'check only these config keys (shell-style globs allowed)')
    .option(
      '--gpu-memory-utilization <fraction>',
      "the engines' memory budget as a fraction of device memory",
      parseFraction,
      0.9,
    )
    .addOption(
      new Option(
        '--kv-cache-dtype <dtype>',
        'KV-cache precision; auto: bf16, or fp8 for sparse-MLA (DSA) models',
      )
        .choices(['auto', 'bf16', 'fp8'])
        .default('auto'),
    )
    .option(
      '--reserve-gib <gib>',
      'engine reserve per rank (activations, graphs, buffers), GiB (default: the catalog default, 8)',
      parseGiB,
    )
    .option(
      '--engram-offload',
      'Engram tables held in host memory (the recipe passes --engram-config \'{"cpu_offload":true}\'); default: on the GPU',
    )
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--no-cache', 'do not reuse configs parsed by earlier runs (also: INFX_NO_CACHE=1)')
    .action(async (flags: CheckFlags) => {
      try {
        const [{ checkConfigs }, { formatReport }] = await Promise.all([
          import('../check/run.ts'),
          import('../check/format.ts'),
        ]);
        const report = await checkConfigs({
          configFiles: flags.configFiles,
          runnerConfig: flags.runnerConfig,
          configKeys: flags.configKeys,
          gpuMemoryUtilization: flags.gpuMemoryUtilization,
          kvCacheDtype: flags.kvCacheDtype,
          reserveGiB: flags.reserveGib,
          engramOffload: flags.engramOffload,
          cache: flags.cache,
        });
        io.stdout(flags.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
        setExit(report.ok ? 0 : 1);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
