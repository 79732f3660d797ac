/** Parsing what squeue, scontrol and sacct print about jobs, and normalizing Slurm's job states. */

export const JOB_STATES = [
  'PENDING',
  'RUNNING',
  'COMPLETING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMEOUT',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'UNKNOWN',
] as const;
export type JobStateName = (typeof JOB_STATES)[number];

export interface JobState {
  state: JobStateName;
  /** The job's exit status once it ended; 128 + N when a signal N ended it (shell convention); else null. */
  exitCode: number | null;
  /** Slurm's reason (why pending, why it ended), null when Slurm gives none. */
  reason: string | null;
  /** Allocated node list in Slurm's compressed form (`gpu[01-04]`), null before allocation. */
  nodes: string | null;
}

/** States after which a job never changes again. */
export const TERMINAL_STATES: ReadonlySet<JobStateName> = new Set([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMEOUT',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
]);

export function isTerminal(state: JobStateName): boolean {
  return TERMINAL_STATES.has(state);
}

/** Slurm's other states and short codes (squeue %t, sacct) mapped onto the ones above. */
const ALIASES: Record<string, JobStateName> = {
  PD: 'PENDING',
  R: 'RUNNING',
  CG: 'COMPLETING',
  CD: 'COMPLETED',
  F: 'FAILED',
  CA: 'CANCELLED',
  TO: 'TIMEOUT',
  NF: 'NODE_FAIL',
  OOM: 'OUT_OF_MEMORY',
  PR: 'PREEMPTED',
  CONFIGURING: 'PENDING',
  CF: 'PENDING',
  REQUEUED: 'PENDING',
  RQ: 'PENDING',
  REQUEUE_HOLD: 'PENDING',
  REQUEUE_FED: 'PENDING',
  RESV_DEL_HOLD: 'PENDING',
  RESIZING: 'RUNNING',
  SUSPENDED: 'RUNNING',
  S: 'RUNNING',
  STOPPED: 'RUNNING',
  ST: 'RUNNING',
  SIGNALING: 'COMPLETING',
  SO: 'COMPLETING',
  STAGE_OUT: 'COMPLETING',
  BOOT_FAIL: 'NODE_FAIL',
  BF: 'NODE_FAIL',
  DEADLINE: 'TIMEOUT',
  DL: 'TIMEOUT',
  SPECIAL_EXIT: 'FAILED',
  SE: 'FAILED',
  REVOKED: 'CANCELLED',
  RV: 'CANCELLED',
};

/** `CANCELLED by 0`, `cancelled+`, `R`, `OUT_OF_MEMORY` → one of JOB_STATES (UNKNOWN when unrecognized). */
export function normalizeState(raw: string): JobStateName {
  const word = raw.trim().toUpperCase().split(/[\s+]/)[0] ?? '';
  if ((JOB_STATES as readonly string[]).includes(word)) return word as JobStateName;
  return ALIASES[word] ?? 'UNKNOWN';
}

/** `3:0` (status:signal) → 3; `0:15` → 143; anything else → null. */
export function parseExitCode(raw: string | undefined): number | null {
  const m = /^(\d+):(\d+)$/.exec(raw?.trim() ?? '');
  if (!m) return null;
  const signal = Number(m[2]);
  return signal > 0 ? 128 + signal : Number(m[1]);
}

const nullable = (v: string | undefined): string | null => {
  const t = v?.trim() ?? '';
  return t === '' || t === 'None' || t === '(null)' || t === 'n/a' ? null : t;
};

/** The job a squeue/scontrol/sacct id belongs to: `12+1` (hetjob component) and `12.batch` (step) → `12`. */
export function baseJobId(id: string): string {
  return id.trim().split(/[+.]/)[0] ?? '';
}

const RANK: Record<JobStateName, number> = {
  RUNNING: 0,
  COMPLETING: 1,
  PENDING: 2,
  UNKNOWN: 3,
  NODE_FAIL: 4,
  OUT_OF_MEMORY: 5,
  TIMEOUT: 6,
  FAILED: 7,
  PREEMPTED: 8,
  CANCELLED: 9,
  COMPLETED: 10,
};

/** Two components of one heterogeneous job as one state: still active wins, then the first failure kind. */
export function combineStates(a: JobState, b: JobState): JobState {
  const [first, second] = RANK[a.state] <= RANK[b.state] ? [a, b] : [b, a];
  const nodes = [a.nodes, b.nodes].filter((n): n is string => n !== null);
  return {
    state: first.state,
    exitCode: isTerminal(first.state) ? (first.exitCode ?? second.exitCode) : null,
    reason: first.reason ?? second.reason,
    nodes: nodes.length > 0 ? [...new Set(nodes)].join(',') : null,
  };
}

function merge(into: Map<string, JobState>, id: string, state: JobState): void {
  const prev = into.get(id);
  into.set(id, prev ? combineStates(prev, state) : state);
}

/** squeue's `-o` format for {@link parseSqueue}: the reason goes last, where a `|` in it cannot shift fields. */
export const SQUEUE_FORMAT = '%i|%T|%N|%r';

/** Lines of `squeue -h -o SQUEUE_FORMAT`, keyed by job id (hetjob components combined). */
export function parseSqueue(text: string): Map<string, JobState> {
  const out = new Map<string, JobState>();
  for (const line of text.split('\n')) {
    const [id, state, nodes, ...reason] = line.split('|');
    if (!id?.trim() || state === undefined) continue;
    merge(out, baseJobId(id), {
      state: normalizeState(state),
      exitCode: null,
      reason: nullable(reason.join('|')),
      nodes: nullable(nodes),
    });
  }
  return out;
}

/** One `key=value` from a `scontrol show job -o` line (values end at the next space; keys never contain one). */
function field(line: string, key: string): string | undefined {
  return new RegExp(`(?:^|\\s)${key}=(\\S*)`).exec(line)?.[1];
}

/** Output of `scontrol show job -o ID`: one line per job (per component of a hetjob), keyed by job id. */
export function parseScontrolJobs(text: string): Map<string, JobState> {
  const out = new Map<string, JobState>();
  for (const line of text.split('\n')) {
    const id = field(line, 'JobId');
    const state = field(line, 'JobState');
    if (!id || state === undefined) continue;
    const normalized = normalizeState(state);
    merge(out, baseJobId(field(line, 'HetJobId') ?? id), {
      state: normalized,
      exitCode: isTerminal(normalized) ? parseExitCode(field(line, 'ExitCode')) : null,
      reason: nullable(field(line, 'Reason')),
      nodes: nullable(field(line, 'NodeList')),
    });
  }
  return out;
}

/** sacct's `-o` fields for {@link parseSacct}, with `-n -P -X`. */
export const SACCT_FIELDS = 'JobID,State,ExitCode,NodeList,Reason';

/** Lines of `sacct -n -P -X -o SACCT_FIELDS`, keyed by job id. */
export function parseSacct(text: string): Map<string, JobState> {
  const out = new Map<string, JobState>();
  for (const line of text.split('\n')) {
    const [id, state, exit, nodes, ...reason] = line.split('|');
    if (!id?.trim() || state === undefined || id.includes('.')) continue;
    const normalized = normalizeState(state);
    merge(out, baseJobId(id), {
      state: normalized,
      exitCode: isTerminal(normalized) ? parseExitCode(exit) : null,
      reason: nullable(reason.join('|')),
      nodes: nullable(nodes === 'None assigned' ? '' : nodes),
    });
  }
  return out;
}
