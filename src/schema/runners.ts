import * as z from 'zod';
import { closed, posInt, pyTypeName } from './zod-helpers.ts';

/** `runners.yaml` (matrix-spec §1.2): schedulable labels → concrete runner nodes, plus per-fleet hardware facts. */

const runnerNodes = z
  .array(
    z.string({
      error: (iss) =>
        `Runner config entry must contain only strings (runner node names), got ${pyTypeName(iss.input)}`,
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
