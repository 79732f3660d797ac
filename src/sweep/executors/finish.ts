import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { logTail } from '../../engines/process.ts';
import type { PointStatus } from '../../schema/run-dir.ts';
import { RUN_DIR_SCHEMA_VERSION } from '../../schema/run-dir.ts';
import { ATTEMPT_FILES, readStatus, writeJson } from '../run-dir.ts';
import type { AttemptJob } from './types.ts';

/**
 * The status of an attempt whose job has ended: the one `infx sweep point` wrote, or, when the job died
 * before it could (killed, out of memory, node lost), a failed status written on its behalf.
 */
export async function finishedStatus(
  job: AttemptJob,
  ended: { how: string; interrupted: boolean; startedAt: Date; log: string },
): Promise<PointStatus> {
  const path = join(job.dir, ATTEMPT_FILES.status);
  if (existsSync(path)) return readStatus(path);
  const finished = new Date();
  const tail = await logTail(ended.log, 20);
  const last = tail.filter((l) => !l.startsWith('(add --help')).at(-1);
  // Without point.json the job never got as far as starting an engine.
  const phase = existsSync(join(job.dir, ATTEMPT_FILES.point)) ? 'benchmark' : 'setup';
  const status: PointStatus = {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    pointId: job.spec.pointId,
    attempt: job.attempt,
    status: 'failed',
    phase,
    reason: `the point's job ended without a status (${ended.how})${last ? `: ${last}` : ''}`,
    interrupted: ended.interrupted,
    valid: null,
    startedAt: ended.startedAt.toISOString(),
    finishedAt: finished.toISOString(),
    durationS: (finished.getTime() - ended.startedAt.getTime()) / 1000,
    host: hostname(),
    engineExit: null,
    logTail: tail,
  };
  await writeJson(path, status);
  return status;
}
