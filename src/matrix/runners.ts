import type { RunnerConfig } from '../schema/runners.ts';

/** Which runner value(s) a config's rows get (matrix-spec §5.2, §5.3, §10). */

/** full-sweep: the label, or with a filter every node of the label whose name contains it. */
export function fullSweepRunners(runners: RunnerConfig, label: string, filter: string | undefined): string[] {
  if (filter === undefined) return [label];
  return (runners.labels[label] ?? []).filter((n) => n.includes(filter));
}

/** test-config: like full-sweep, but the label itself is a candidate (first) when it contains the filter. */
export function testConfigRunners(
  runners: RunnerConfig,
  label: string,
  filter: string | undefined,
): string[] {
  if (filter === undefined) return [label];
  const candidates = [label, ...(runners.labels[label] ?? [])].filter((n) => n.includes(filter));
  return [...new Set(candidates)];
}
