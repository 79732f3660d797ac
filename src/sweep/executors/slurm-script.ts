import { shellJoin, shellQuote } from '../../engines/shell.ts';
import { InfxError } from '../../schema/errors.ts';

/** How a cluster wants GPUs asked for: `--gres=gpu:N`, `--gpus-per-node=N`, or not at all (whole nodes). */
export type GpuRequest = 'gres' | 'gpus-per-node' | 'none';

/** One component of a job: a homogeneous set of nodes (a heterogeneous job has several). */
export interface JobComponent {
  nodes: number;
  /** Total tasks of the component; Slurm's default (one per node) when absent. */
  ntasks?: number;
  cpusPerTask?: number;
  gpusPerNode?: number;
  /** Overrides the job's partition for this component. */
  partition?: string;
  /** Raw sbatch options for this component only (each starts with `--`). */
  extraArgs?: readonly string[];
}

export interface JobScriptSpec {
  name: string;
  /** stdout path; Slurm's `%j` (job id) and friends are allowed. */
  output: string;
  /** stderr path; the output file when absent. */
  error?: string;
  /** Directory the command runs in. */
  workDir: string;
  /** The program and its arguments, exec'd as the job's main process. */
  command: readonly string[];
  env?: Readonly<Record<string, string>>;
  timeLimitMinutes?: number;
  nodes?: number;
  ntasks?: number;
  cpusPerTask?: number;
  gpusPerNode?: number;
  gpuRequest?: GpuRequest;
  partition?: string;
  account?: string;
  /** Raw sbatch options for every component (each starts with `--`, e.g. `--qos=high`, `--exclusive`). */
  extraArgs?: readonly string[];
  /** More than one entry makes a heterogeneous job (`#SBATCH hetjob`); then nodes/ntasks/... above are unused. */
  components?: readonly JobComponent[];
}

export class JobScriptError extends InfxError {
  override name = 'JobScriptError';
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A `#SBATCH` value: one line, no double quote; double-quoted (sbatch strips the quotes) when it has spaces. */
function directiveValue(what: string, value: string): string {
  if (value === '' || /[\n\r"\0]/.test(value)) {
    throw new JobScriptError(
      `${what} ${JSON.stringify(value)} cannot go in an #SBATCH line (empty, newline or ")`,
    );
  }
  return /\s/.test(value) ? `"${value}"` : value;
}

function count(what: string, n: number, min: number): number {
  if (!Number.isInteger(n) || n < min)
    throw new JobScriptError(`${what} must be an integer ≥ ${min}, got ${n}`);
  return n;
}

function rawArgs(args: readonly string[] | undefined): string[] {
  return (args ?? []).map((arg) => {
    if (!arg.startsWith('--') || arg.length < 3 || /[\n\r\0]/.test(arg)) {
      throw new JobScriptError(
        `extra sbatch argument ${JSON.stringify(arg)} must be one line starting with --`,
      );
    }
    return arg;
  });
}

function componentLines(spec: JobScriptSpec, c: JobComponent): string[] {
  const lines: string[] = [];
  const partition = c.partition ?? spec.partition;
  if (partition !== undefined) lines.push(`--partition=${directiveValue('partition', partition)}`);
  if (spec.account !== undefined) lines.push(`--account=${directiveValue('account', spec.account)}`);
  if (spec.timeLimitMinutes !== undefined) {
    lines.push(`--time=${count('timeLimitMinutes', Math.ceil(spec.timeLimitMinutes), 1)}`);
  }
  lines.push(`--nodes=${count('nodes', c.nodes, 1)}`);
  if (c.ntasks !== undefined) lines.push(`--ntasks=${count('ntasks', c.ntasks, 1)}`);
  if (c.cpusPerTask !== undefined) lines.push(`--cpus-per-task=${count('cpusPerTask', c.cpusPerTask, 1)}`);
  const gpus = count('gpusPerNode', c.gpusPerNode ?? 0, 0);
  const how = spec.gpuRequest ?? 'gres';
  if (gpus > 0 && how === 'gres') lines.push(`--gres=gpu:${gpus}`);
  if (gpus > 0 && how === 'gpus-per-node') lines.push(`--gpus-per-node=${gpus}`);
  lines.push(...rawArgs(spec.extraArgs), ...rawArgs(c.extraArgs));
  return lines;
}

/**
 * An sbatch script that runs `spec.command` (exec'd, so signals from scancel reach it) in `spec.workDir` with
 * `spec.env` exported. Job-wide options (name, output) go in the first component, as Slurm reads them there.
 */
export function jobScript(spec: JobScriptSpec): string {
  if (spec.command.length === 0) throw new JobScriptError('job command is empty');
  const components: readonly JobComponent[] =
    spec.components && spec.components.length > 0
      ? spec.components
      : [
          {
            nodes: spec.nodes ?? 1,
            ...(spec.ntasks !== undefined && { ntasks: spec.ntasks }),
            ...(spec.cpusPerTask !== undefined && { cpusPerTask: spec.cpusPerTask }),
            ...(spec.gpusPerNode !== undefined && { gpusPerNode: spec.gpusPerNode }),
          },
        ];
  const head = [
    `--job-name=${directiveValue('job name', spec.name)}`,
    `--output=${directiveValue('output path', spec.output)}`,
    `--error=${directiveValue('error path', spec.error ?? spec.output)}`,
  ];
  const directives: string[] = [];
  components.forEach((c, i) => {
    if (i > 0) directives.push('hetjob');
    directives.push(...(i === 0 ? head : []), ...componentLines(spec, c));
  });
  const exports = Object.entries(spec.env ?? {}).map(([name, value]) => {
    if (!ENV_NAME.test(name))
      throw new JobScriptError(`environment variable name ${JSON.stringify(name)} is invalid`);
    return `export ${name}=${shellQuote(value)}`;
  });
  return [
    '#!/bin/bash',
    ...directives.map((d) => `#SBATCH ${d}`),
    'set -euo pipefail',
    `cd -- ${shellQuote(spec.workDir)}`,
    ...exports,
    `exec ${shellJoin(spec.command)}`,
    '',
  ].join('\n');
}
