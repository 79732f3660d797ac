import * as z from 'zod';
import { SAFE_NAME } from './master-config.ts';
import { closed, posInt, pyTypeName } from './zod-helpers.ts';

/** `runners.yaml` (matrix-spec §1.2): schedulable labels → concrete runner nodes, plus per-fleet hardware facts. */

/** Longest runner label or node name: both become parts of point ids and result file names. */
export const MAX_RUNNER_NAME_CHARS = 128;

const unsafeName = (what: string, v: string): string | undefined => {
  if (v.length > MAX_RUNNER_NAME_CHARS)
    return `${what} is too long (${v.length} characters): at most ${MAX_RUNNER_NAME_CHARS}`;
  if (!SAFE_NAME.test(v))
    return `${what} '${v.slice(0, 80)}' cannot be part of a file name: it becomes part of point ids and result file names, so use only letters, digits and _ . : - (starting with a letter or digit)`;
  return undefined;
};

/** Why a runner label cannot be used (it names rows' runner and so file names), or undefined. */
export const unsafeLabel = (label: string) => unsafeName('runner label', label);

const runnerNodes = z
  .array(
    z
      .string({
        error: (iss) =>
          `Runner config entry must contain only strings (runner node names), got ${pyTypeName(iss.input)}`,
      })
      .refine((v) => unsafeName('runner node name', v) === undefined, {
        error: (iss) => unsafeName('runner node name', String(iss.input)) ?? 'unsafe runner node name',
        params: { rule: 'naming.unsafe' },
      }),
    { error: (iss) => `must be a list of runner node names, got ${pyTypeName(iss.input)}` },
  )
  .min(1, { error: 'cannot be an empty list' });

export const RunnerHardwareSchema = closed({
  'available-cpu-dram-mib': posInt().describe('Host CPU DRAM available to jobs, in MiB'),
  'gpus-per-node': posInt(),
});

export const RunnerConfigSchema = closed({
  labels: z.record(z.string(), runnerNodes, {
    error: 'Runner config must define a labels mapping (label -> list of runner node names)',
  }),
  hardware: z.record(z.string(), RunnerHardwareSchema).default({}),
});

export type RunnerHardware = z.input<typeof RunnerHardwareSchema>;
export interface RunnerConfig {
  labels: Record<string, string[]>;
  hardware: Record<string, RunnerHardware>;
}
