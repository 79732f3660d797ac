import type { AgenticRequestRecord } from '../../schema/agentic-record.ts';
import { InfxError } from '../../schema/errors.ts';
import type { PointResultOf } from '../../schema/point-result.ts';
import type { AgenticCodingWorkload } from '../../schema/workload.ts';
import { aggregateRecords } from '../fixed-seq-len.ts';
import type { PointInput } from '../point-input.ts';
import { aggregateAgentic } from './aggregate.ts';

/**
 * The result of an agentic-coding point: the fields every point has, from its benchmark records as for
 * any workload (so plots, compare and the store read it as they read any point), and its `agentic` block,
 * the reference's metrics (§4.4). Its gate is the replay's error gate (0.10 of completed, §2.10), and it
 * is valid when the reference would call it a valid submission and neither client nor engine held it back.
 */
export function aggregateAgenticPoint(
  input: PointInput<AgenticCodingWorkload>,
): PointResultOf<'agentic-coding'> {
  const replay = input.replay;
  if (replay === undefined)
    throw new InfxError(
      'an agentic point is aggregated with the replay facts (profiling window, credit drops)',
    );
  const records = input.records.filter((r): r is AgenticRequestRecord => r.agentic !== undefined);
  const common = aggregateRecords(input, true);
  const agentic = aggregateAgentic({ ...input, records, replay });
  const gate = {
    maxFailureRate: agentic.errorGate.threshold,
    passed: agentic.errorGate.passed,
    reason: agentic.errorGate.message,
  };
  return {
    ...common,
    workload: input.workload,
    gate,
    agentic,
    valid: agentic.submissionValid && !common.client.clientLimited && !common.engine.engineLimited,
  };
}
