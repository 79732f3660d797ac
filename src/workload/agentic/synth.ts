import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { AgenticTrace, TraceApiCall, TraceSubagent } from '../../schema/agentic-trace.ts';
import { Rng } from '../random.ts';
import { TraceUsageError } from './errors.ts';
import { NAMED_CONTEXTS } from './max-context.ts';

/**
 * `infx trace synth`: a synthetic corpus in the Weka trace format, calibrated to the published shape of
 * `semianalysisai/cc-traces-weka-062126` (393 traces, ≈99k calls, ≈57k top-level turns: ≈252 calls and
 * ≈145 main-agent turns a trace, so ≈107 calls a trace inside subagents; addendum §1.13). Same seed, same
 * cap and same count: the same bytes (one PRNG stream per trace, src/workload/random.ts; only V8's own
 * Math.log/exp/cos besides).
 *
 * The distributions (LN(m, s): log-normal with median m and log-sd s; all token counts in 64-token blocks):
 * - main-agent turns a trace: LN(103, 0.7) clamped to [20, 1500] (the corpus build keeps ≥ 20 main turns);
 * - system prompt U[2000, 6000] tokens, tool definitions U[8000, 24000]: one shared prefix of every main call;
 * - context growth a turn: the previous output's blocks plus new user/tool-result blocks LN(g, 1.0), where
 *   the trace's own g is LN(40 blocks, 0.6), so contexts grow toward the cap at differing speeds;
 * - output tokens a main call LN(250, 1.1) in [1, 32000]; stop `tool_use` 85%, else `end_turn`;
 * - compaction: once a call would pass the trace's threshold U[0.80, 0.95] × cap, a summarising call
 *   (the full context in, U[1500, 6000] tokens out) is made and the next context is the shared prefix, the
 *   summary and a short continuation: `hash_ids` that do not extend the previous call's (addendum §1.5);
 * - preamble: 85% of traces open with a title-generation call on a small model (1–4 blocks of their own,
 *   ≤ 64 tokens out), block-disjoint from every other call (addendum §1.6);
 * - subagents: after a main turn, a group is spawned with probability 0.045, of 1–5 subagents (weights
 *   50/20/15/8/7; never more than 5 running at once, background ones included); type general-purpose 50%,
 *   Explore 40% (small model), Plan 10%; each has its type's own prompt prefix (U[4000, 12000] tokens, shared
 *   by subagents of that type in the trace: fresh context, cacheable prefix), a task LN(10 blocks, 0.6), and
 *   1 + Geometric(mean 7.5) calls (≤ 60) growing by LN(30 blocks, 1.0), output LN(200, 1.1); 10% of the
 *   subagents of one-subagent groups run in the background (`status: "async_launched"`, `duration_ms: null`)
 *   and gate no turn; the parent's next turn starts after its foreground subagents all end and carries
 *   their results, LN(12 blocks, 0.6) each;
 * - timing: a call takes 0.5 s + in/200000 s + out/70 s (`api_time`); the gap to the next call is
 *   LN(1.5 s, 0.8) after `tool_use` and LN(25 s, 1.3) after `end_turn` (a user thinking: its tail passes the
 *   300 s idle cap now and then); a subagent starts 0.01–0.3 s after its spawning turn ends. `t` in ms steps.
 * Every call obeys `in + out ≤ cap`, so the corpus survives `--max-context` of its own cap.
 */

export const BLOCK = 64;
const MAIN_MODEL = 'claude-sonnet-4-5';
const SMALL_MODEL = 'claude-haiku-4-5';
const SUBAGENT_TYPES = [
  ['general-purpose', 0.5],
  ['Explore', 0.4],
  ['Plan', 0.1],
] as const;
const GROUP_SIZE_WEIGHTS = [50, 20, 15, 8, 7];
const MAX_PARALLEL = 5;
/** Blocks a context always leaves free below the cap: the longest summary a compaction writes, and one. */
const SUMMARY_ROOM_BLOCKS = Math.ceil(6000 / BLOCK) + 1;
/** The smallest cap the shape above fits in (prefix ≤ a third, compaction at ≥ 80%, room for a summary). */
export const MIN_SYNTH_CONTEXT = 65_536;

export interface SynthOptions {
  traces: number;
  seed: number;
  /** Tokens; default 1M (1,048,576). */
  maxContext?: number;
}

class Draw {
  constructor(private readonly rng: Rng) {}
  float = () => this.rng.float();
  int = (lo: number, hi: number) => this.rng.int(lo, hi);
  chance = (p: number) => this.rng.float() < p;
  normal(): number {
    // Box-Muller; 1 - u keeps the log finite.
    const u = 1 - this.rng.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.rng.float());
  }
  logNormal = (median: number, sigma: number) => median * Math.exp(sigma * this.normal());
  clampInt = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(v)));
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let x = this.rng.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i] as number;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }
  hex(n: number): string {
    let s = '';
    while (s.length < n) s += this.rng.u32().toString(16).padStart(8, '0');
    return s.slice(0, n);
  }
}

const ms = (s: number) => Math.round(s * 1000) / 1000;
const apiTime = (inTokens: number, out: number) => ms(0.5 + inTokens / 200_000 + out / 70);

/** One synthetic trace, the `index`-th of the corpus of `seed`. */
export function synthTrace(
  seed: number,
  index: number,
  maxContext: number = NAMED_CONTEXTS['1M'] as number,
): AgenticTrace {
  if (maxContext < MIN_SYNTH_CONTEXT)
    throw new TraceUsageError(
      `trace synth needs --max-context of at least ${MIN_SYNTH_CONTEXT} tokens, got ${maxContext}`,
    );
  const d = new Draw(new Rng(seed, 'agentic-trace', index));
  const capBlocks = Math.floor(maxContext / BLOCK);
  let nextId = 0;
  const fresh = (n: number) => Array.from({ length: Math.max(0, n) }, () => nextId++);
  const requests: (TraceApiCall | TraceSubagent)[] = [];

  const systemTokens = d.int(2000, 6000);
  const toolTokens = d.int(8000, 24000);
  // Never more than a third of the cap, so that a tiny --max-context still leaves room to grow.
  const prefix = fresh(Math.min(Math.ceil((systemTokens + toolTokens) / BLOCK), Math.floor(capBlocks / 3)));
  const growth = d.logNormal(40, 0.6);
  const compactAt = Math.floor(capBlocks * (0.8 + 0.15 * d.float()));
  const call = (
    t: number,
    ids: number[],
    outWanted: number,
    stop: string,
    model: string,
    inputTypes: string[],
  ): TraceApiCall => {
    const inTokens = ids.length * BLOCK;
    const out = Math.max(1, Math.min(outWanted, maxContext - inTokens));
    return {
      type: 's',
      t: ms(t),
      model,
      in: inTokens,
      out,
      hash_ids: ids,
      input_types: inputTypes,
      output_types: stop === 'tool_use' ? ['text', 'tool_use'] : ['text'],
      stop,
      api_time: apiTime(inTokens, out),
      think_time: null,
    };
  };

  let t = 0;
  if (d.chance(0.85)) {
    const pre = call(0, fresh(d.int(1, 4)), d.int(8, 64), 'end_turn', SMALL_MODEL, ['text']);
    requests.push(pre);
    t = d.float() * 0.2;
  }

  const mainTurns = d.clampInt(d.logNormal(103, 0.7), 20, 1500);
  let ctx = [...prefix, ...fresh(d.clampInt(d.logNormal(8, 0.8), 1, 200))];
  let lastStop = 'end_turn';
  const subPrefix = new Map<string, number[]>();
  /** End times of running background subagents. */
  let background: number[] = [];
  const limitGrowth = (blocks: number) => Math.min(blocks, Math.floor(capBlocks / 4));

  for (let k = 0; k < mainTurns; k++) {
    let outWanted = d.clampInt(d.logNormal(250, 1.1), 1, 32_000);
    if (ctx.length > compactAt || ctx.length * BLOCK + outWanted > maxContext) {
      const summary = call(t, ctx.slice(), d.int(1500, 6000), 'end_turn', MAIN_MODEL, ['text']);
      requests.push(summary);
      t += (summary.api_time as number) + d.logNormal(1.5, 0.8);
      ctx = [...prefix, ...fresh(Math.ceil(summary.out / BLOCK)), ...fresh(d.int(1, 8))];
      outWanted = Math.min(outWanted, maxContext - ctx.length * BLOCK);
    }
    const stop = d.chance(0.85) ? 'tool_use' : 'end_turn';
    const turn = call(t, ctx.slice(), outWanted, stop, MAIN_MODEL, [
      lastStop === 'tool_use' ? 'tool_result' : 'text',
    ]);
    requests.push(turn);
    let end = t + (turn.api_time as number);
    let results = 0;
    background = background.filter((e) => e > end);
    if (k >= 1 && k < mainTurns - 1 && d.chance(0.045)) {
      const room = MAX_PARALLEL - background.length;
      const size = Math.min(room, 1 + d.weighted(GROUP_SIZE_WEIGHTS));
      let joinAt = end;
      for (let j = 0; j < size; j++) {
        const typeIdx = d.weighted(SUBAGENT_TYPES.map(([, w]) => w));
        const type = (SUBAGENT_TYPES[typeIdx] as (typeof SUBAGENT_TYPES)[number])[0];
        let own = subPrefix.get(type);
        if (own === undefined) {
          own = fresh(Math.min(Math.ceil(d.int(4000, 12000) / BLOCK), Math.floor(capBlocks / 3)));
          subPrefix.set(type, own);
        }
        const sub = synthSubagent(
          d,
          end + 0.01 + 0.29 * d.float(),
          own,
          fresh,
          capBlocks,
          maxContext,
          type,
          call,
        );
        if (sub.requests.length === 0) continue;
        const inBackground = size === 1 && d.chance(0.1);
        if (inBackground) {
          sub.status = 'async_launched';
          sub.duration_ms = null;
          background.push(sub.t + subagentSpan(sub));
        } else {
          joinAt = Math.max(joinAt, sub.t + (sub.duration_ms as number) / 1000);
          results += d.clampInt(d.logNormal(12, 0.6), 1, 400);
        }
        requests.push(sub);
      }
      end = joinAt;
    }
    const gap = stop === 'tool_use' ? d.logNormal(1.5, 0.8) : d.logNormal(25, 1.3);
    turn.think_time = ms(gap);
    t = end + gap;
    const grown =
      Math.ceil(turn.out / BLOCK) + limitGrowth(d.clampInt(d.logNormal(growth, 1.0), 1, 100_000) + results);
    // Room is always left for the summarising call that the next turn then makes.
    ctx = [...ctx, ...fresh(Math.min(grown, capBlocks - SUMMARY_ROOM_BLOCKS - ctx.length))];
    lastStop = stop;
  }

  const models: string[] = [];
  for (const r of requests)
    for (const m of r.type === 'subagent' ? (r.models ?? []) : [r.model ?? MAIN_MODEL])
      if (!models.includes(m)) models.push(m);
  return {
    id: `synth-${seed}-${String(index).padStart(4, '0')}`,
    models,
    block_size: BLOCK,
    hash_id_scope: 'local',
    tool_tokens: toolTokens,
    system_tokens: systemTokens,
    requests,
  };
}

/** Seconds from a subagent's start to the end of its last call. */
function subagentSpan(sub: TraceSubagent): number {
  let end = sub.t;
  for (const r of sub.requests) end = Math.max(end, r.t + (r.api_time ?? 0));
  return end - sub.t;
}

function synthSubagent(
  d: Draw,
  start: number,
  own: number[],
  fresh: (n: number) => number[],
  capBlocks: number,
  maxContext: number,
  type: string,
  call: (t: number, ids: number[], out: number, stop: string, model: string, types: string[]) => TraceApiCall,
): TraceSubagent {
  const model = type === 'Explore' ? SMALL_MODEL : MAIN_MODEL;
  // 1 + Geometric(p) with mean 1/p = 7.5 extra calls.
  let n = 1;
  while (n < 60 && d.float() > 1 / 8.5) n++;
  let ctx = [...own, ...fresh(d.clampInt(d.logNormal(10, 0.6), 1, 400))];
  const calls: TraceApiCall[] = [];
  let t = start;
  for (let i = 0; i < n; i++) {
    const out = d.clampInt(d.logNormal(200, 1.1), 1, 32_000);
    // A subagent that runs out of context ends there rather than compacting.
    if (ctx.length * BLOCK + out > maxContext * 0.95) break;
    const last = i === n - 1;
    const c = call(t, ctx.slice(), out, last ? 'end_turn' : 'tool_use', model, [
      i === 0 ? 'text' : 'tool_result',
    ]);
    calls.push(c);
    const gap = d.logNormal(1.2, 0.8);
    if (!last) c.think_time = ms(gap);
    t += (c.api_time as number) + gap;
    ctx = [
      ...ctx,
      ...fresh(
        Math.ceil(c.out / BLOCK) +
          Math.min(d.clampInt(d.logNormal(30, 1.0), 1, 100_000), Math.floor(capBlocks / 4)),
      ),
    ];
  }
  const sub: TraceSubagent = {
    type: 'subagent',
    t: ms(start),
    agent_id: d.hex(16),
    subagent_type: type,
    status: 'completed',
    models: [model],
    duration_ms: 0,
    total_tokens: calls.reduce((s, c) => s + c.in + c.out, 0),
    requests: calls,
  };
  sub.duration_ms = Math.round(subagentSpan(sub) * 1000);
  return sub;
}

/**
 * Writes the corpus one line at a time through `write` (a file or stdout), so memory holds one trace;
 * `progress` hears after each trace.
 */
export function writeSynthCorpus(
  options: SynthOptions,
  write: (line: string) => void,
  progress?: (done: number, total: number) => void,
): void {
  const cap = options.maxContext ?? (NAMED_CONTEXTS['1M'] as number);
  for (let i = 0; i < options.traces; i++) {
    write(`${JSON.stringify(synthTrace(options.seed, i, cap))}\n`);
    progress?.(i + 1, options.traces);
  }
}

/**
 * The corpus written to `path` (replaced if there), one line at a time, under a temporary name renamed
 * into place at the end: a run stopped half-way (Ctrl-C, kill -9) never leaves a truncated corpus there.
 */
export function writeSynthCorpusFile(
  options: SynthOptions,
  path: string,
  progress?: (done: number, total: number) => void,
): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeSynthCorpus(options, (line) => writeSync(fd, line), progress);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}
