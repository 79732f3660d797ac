import { vllmCudaGraphCeiling, vllmDefaultMaxNumSeqs } from '../catalog/engine-defaults.ts';
import { accelerator } from '../catalog/index.ts';
import { AGENTIC_FANOUT } from '../check/rules.ts';
import {
  isAgentic,
  isSingleNode,
  type MatrixRow,
  rowConcs,
  type SingleNodeRow,
} from '../schema/matrix-row.ts';
import type { ReviewFinding } from '../schema/review.ts';
import { type FlagValue, flagValues } from './shell-values.ts';

/**
 * What a recipe lets the engine batch at each point that runs it: max-num-seqs (or SGLang's
 * max-running-requests) against the concurrency and, for agentic points, the 2 × conc subagent fan-out;
 * and the CUDA graph capture ceiling against the batch the engine then runs. Decode steps above the
 * ceiling run without graphs, so such a point measures a slower engine than the one a tuned deployment
 * runs. Values are read at each point from the recipe itself (shell-values.ts), with the engine's own
 * defaults where the recipe states none; a value the script leaves undecidable gives no finding.
 */

export interface RecipeRows {
  path: string;
  text: string;
  /** The single-node rows whose recipe this is, each with its config key. */
  rows: readonly { configKey: string; row: SingleNodeRow }[];
}

/**
 * The recipe paths a row's launcher tries, as the reference's launchers name them (matrix-spec §10):
 * `benchmarks/single_node/<agentic|fixed_seq_len>/<prefix>_<precision>_<hw>[_<framework>][_mtp].sh`.
 */
export function recipePaths(row: MatrixRow): string[] {
  if (!isSingleNode(row)) return [];
  const dir = `benchmarks/single_node/${isAgentic(row) ? 'agentic' : 'fixed_seq_len'}`;
  const hw = row.runner.replace(/^cluster:/, '').split(/[-_]/)[0] ?? '';
  const stem = `${row['model-prefix']}_${row.precision}_${hw}`;
  const mtp = row['spec-decoding'] === 'mtp' ? '_mtp' : '';
  const fw = row.framework === 'trt' || row.framework === 'trtllm' ? 'trt' : row.framework;
  return [`${dir}/${stem}_${fw}${mtp}.sh`, `${dir}/${stem}${mtp}.sh`];
}

/** The environment the reference's workflow exports to a recipe at one point (client-metrics-spec §1). */
export function pointEnv(row: SingleNodeRow, conc: number): Record<string, string> {
  const env: Record<string, string> = {
    CONC: String(conc),
    TP: String(row.tp),
    EP_SIZE: String(row.ep),
    PP_SIZE: String(row.pp),
    DCP_SIZE: String(row['dcp-size']),
    PCP_SIZE: String(row['pcp-size']),
    DP_ATTENTION: String(row['dp-attn']),
    MODEL: row.model,
    PRECISION: row.precision,
    FRAMEWORK: row.framework,
    IMAGE: row.image,
    SPEC_DECODING: row['spec-decoding'],
  };
  if (!isAgentic(row)) {
    env.ISL = String(row.isl);
    env.OSL = String(row.osl);
    env.MAX_MODEL_LEN = String(row['max-model-len']);
  }
  return env;
}

const FLAGS = {
  vllm: {
    seqs: ['--max-num-seqs'],
    ceiling: ['--max-cudagraph-capture-size'],
    sizes: ['--cuda-graph-sizes'],
    off: ['--enforce-eager'],
    json: ['--compilation-config'],
    spec: ['--speculative-config'],
    tokens: ['--max-num-batched-tokens'],
  },
  sglang: {
    seqs: ['--max-running-requests'],
    ceiling: ['--cuda-graph-max-bs'],
    sizes: ['--cuda-graph-bs'],
    off: ['--disable-cuda-graph'],
    json: [],
    spec: [],
    tokens: [],
  },
} as const;
type Engine = keyof typeof FLAGS;
const ALL_FLAGS = new Set(Object.values(FLAGS).flatMap((f) => Object.values(f).flat() as string[]));

/** A quantity as the recipe sets it at a point: the number, the line, or why it is not known. */
type Setting = { value: number; line: number | null; stated: boolean } | 'unknown' | 'absent';

/** The last occurrence of any of `flags` wins, as an argument parser takes it. */
function last(found: readonly FlagValue[], flags: readonly string[]): FlagValue | 'absent' | 'unknown' {
  const hits = found.filter((f) => flags.includes(f.flag));
  const hit = hits.at(-1);
  if (hit === undefined) return 'absent';
  return hits.some((h) => !h.certain) || hit.value === null ? 'unknown' : hit;
}

function numberSetting(found: readonly FlagValue[], flags: readonly string[]): Setting {
  const hit = last(found, flags);
  if (typeof hit === 'string') return hit;
  const n = /^\s*(\d+)\s*$/.exec(hit.value ?? '');
  return n ? { value: Number(n[1]), line: hit.line, stated: true } : 'unknown';
}

/** The largest of a list of sizes (`--cuda-graph-sizes 1 2 4 … 512`, or one value). */
function listSetting(found: readonly FlagValue[], flags: readonly string[]): Setting {
  const hit = last(found, flags);
  if (typeof hit === 'string') return hit;
  const sizes = (hit.value ?? '').split(/[\s,[\]]+/).filter((s) => s !== '');
  if (sizes.length === 0 || sizes.some((s) => !/^\d+$/.test(s))) return 'unknown';
  return { value: Math.max(...sizes.map(Number)), line: hit.line, stated: true };
}

/** A key of a JSON-valued flag (`--compilation-config '{"max_cudagraph_capture_size": 512}'`). */
function jsonKey(found: readonly FlagValue[], flags: readonly string[], key: string): Setting {
  for (const f of [...found].reverse()) {
    if (!flags.includes(f.flag)) continue;
    if (f.value === null || !f.certain) return 'unknown';
    const m = new RegExp(`"${key}"\\s*:\\s*(\\[[^\\]]*\\]|\\d+)`).exec(f.value);
    if (!m) continue;
    const sizes = (m[1] as string)
      .replace(/[[\]\s]/g, '')
      .split(',')
      .filter((s) => s !== '');
    if (sizes.length === 0 || sizes.some((s) => !/^\d+$/.test(s))) return 'unknown';
    return { value: Math.max(...sizes.map(Number)), line: f.line, stated: true };
  }
  return 'absent';
}

const first = (...s: Setting[]): Setting => s.find((x) => x !== 'absent') ?? 'absent';

interface Batching {
  engine: Engine;
  /** Requests the engine runs at once. */
  seqs: Setting;
  /** The CUDA graph capture ceiling, in the unit the engine captures in (vLLM: tokens; SGLang: requests). */
  ceiling: Setting;
  /** Tokens per request in a decode step: 1 + speculative tokens (vLLM's unit for graphs). */
  tokensPerSeq: number;
  graphsOff: { line: number } | null;
}

/** vLLM's API server default for the runner's GPU (catalog/engine-defaults.ts); null for an unknown GPU. */
function vllmDefaultSeqs(runner: string): number | null {
  try {
    const acc = accelerator(runner);
    return vllmDefaultMaxNumSeqs(acc.memoryGiB, acc.id);
  } catch {
    return null;
  }
}

function batching(engine: Engine, found: readonly FlagValue[], runner: string): Batching {
  const f = FLAGS[engine];
  const off = found.filter((x) => (f.off as readonly string[]).includes(x.flag) && x.certain).at(-1);
  const spec = jsonKey(found, f.spec, 'num_speculative_tokens');
  const tokensPerSeq = engine === 'vllm' && typeof spec !== 'string' ? 1 + spec.value : 1;
  let seqs = numberSetting(found, f.seqs);
  if (seqs === 'absent' && engine === 'vllm') {
    const d = vllmDefaultSeqs(runner);
    if (d !== null) seqs = { value: d, line: null, stated: false };
  }
  let ceiling = first(
    numberSetting(found, f.ceiling),
    listSetting(found, f.sizes),
    jsonKey(found, f.json, 'max_cudagraph_capture_size'),
    jsonKey(found, f.json, 'cudagraph_capture_sizes'),
  );
  // vLLM without a stated ceiling: its default (the token budget applies below).
  if (ceiling === 'absent' && engine === 'vllm' && typeof seqs !== 'string')
    ceiling = {
      value: vllmCudaGraphCeiling(seqs.value, tokensPerSeq, Number.POSITIVE_INFINITY),
      line: null,
      stated: false,
    };
  const tokens = numberSetting(found, f.tokens);
  if (typeof ceiling !== 'string' && typeof tokens !== 'string' && tokens.value < ceiling.value)
    ceiling = { ...ceiling, value: tokens.value, line: tokens.line };
  return { engine, seqs, ceiling, tokensPerSeq, graphsOff: off ? { line: off.line } : null };
}

/** The line an engine is launched on, for findings about what the recipe leaves to its defaults. */
function launchLine(text: string): number | null {
  const i = text
    .split('\n')
    .findIndex((l) => /\bvllm\s+serve\b|sglang\.launch_server|vllm\.entrypoints/.test(l));
  return i < 0 ? null : i + 1;
}

interface Miss {
  rule: 'recipe.max-num-seqs' | 'recipe.cudagraph-ceiling';
  severity: ReviewFinding['severity'];
  line: number | null;
  /** The part of the message that is the same at every conc it holds at. */
  what: string;
  /** The batch the ceiling falls short of at this conc (a ceiling miss only). */
  batch?: string;
  fix: string;
}

const seqsWord = (e: Engine) => (e === 'vllm' ? 'max-num-seqs' : 'max-running-requests');
const said = (s: { value: number; stated: boolean }, what: string) =>
  s.stated ? `${what} ${s.value}` : `${what} ${s.value} (the engine's default)`;

function misses(b: Batching, conc: number, agentic: boolean): Miss[] {
  if (typeof b.seqs === 'string') return [];
  const out: Miss[] = [];
  const need = agentic ? AGENTIC_FANOUT * conc : conc;
  const seqs = b.seqs;
  if (seqs.value < need) {
    const short = seqs.value < conc;
    out.push({
      rule: 'recipe.max-num-seqs',
      severity: short ? 'blocking' : 'warning',
      line: seqs.line,
      what: short
        ? `${said(seqs, seqsWord(b.engine))} is below the concurrency: the engine queues requests the client counts as in flight, so the point does not run at the conc it is named for`
        : `${said(seqs, seqsWord(b.engine))} caps in-flight sequences below ${AGENTIC_FANOUT} × conc: no headroom for subagent fan-out`,
      fix: `derive ${seqsWord(b.engine)} from CONC in the recipe (at least ${agentic ? `${AGENTIC_FANOUT} × CONC` : 'CONC'})`,
    });
  }
  const batch = Math.min(seqs.value, need);
  if (b.graphsOff) {
    out.push({
      rule: 'recipe.cudagraph-ceiling',
      severity: 'warning',
      line: b.graphsOff.line,
      what: 'CUDA graphs are turned off: every decode step runs eagerly',
      fix: 'drop the switch unless the engine needs it for this model, and say why in the PR if it does',
    });
    return out;
  }
  if (typeof b.ceiling === 'string') return out;
  const graphNeed = batch * (b.engine === 'vllm' ? b.tokensPerSeq : 1);
  if (b.ceiling.value < graphNeed) {
    const unit = b.engine === 'vllm' ? 'tokens' : 'requests';
    out.push({
      rule: 'recipe.cudagraph-ceiling',
      severity: 'warning',
      line: b.ceiling.line,
      what: `the CUDA graph capture ceiling is ${b.ceiling.value} ${unit}${b.ceiling.stated ? '' : " (the engine's default)"}, below the decode batch, so the steps above it run without graphs`,
      batch:
        b.tokensPerSeq > 1
          ? `${graphNeed} (${batch} sequences × ${b.tokensPerSeq} tokens) at conc ${conc}`
          : `${graphNeed} at conc ${conc}`,
      fix: `derive the capture ceiling from the same value as ${seqsWord(b.engine)}: at least the decode batch`,
    });
  }
  return out;
}

/** The batching findings of each recipe at each point that runs it: one per rule, line and config key. */
export function batchingFindings(recipes: readonly RecipeRows[]): ReviewFinding[] {
  const out: ReviewFinding[] = [];
  for (const r of recipes) {
    const grouped = new Map<string, { miss: Miss; configKey: string; concs: number[]; batches: string[] }>();
    for (const { configKey, row } of r.rows) {
      const engine = row.framework === 'vllm' || row.framework === 'sglang' ? row.framework : null;
      if (engine === null) continue;
      for (const conc of rowConcs(row)) {
        const found = flagValues(r.text, pointEnv(row, conc), ALL_FLAGS);
        for (const miss of misses(batching(engine, found, row.runner), conc, isAgentic(row))) {
          const id = [miss.rule, miss.line, configKey, miss.what].join('\u0000');
          const g = grouped.get(id) ?? { miss, configKey, concs: [], batches: [] };
          if (!g.concs.includes(conc)) g.concs.push(conc);
          if (miss.batch !== undefined && !g.batches.includes(miss.batch)) g.batches.push(miss.batch);
          grouped.set(id, g);
        }
      }
    }
    for (const { miss, configKey, concs, batches } of grouped.values()) {
      const at = concs.sort((a, b) => a - b).join(', ');
      const tail = batches.length > 0 ? ` (decode batch ${batches.join('; ')})` : '';
      out.push({
        severity: miss.severity,
        rule: miss.rule,
        file: r.path,
        line: miss.line ?? launchLine(r.text),
        configKey,
        message: `at conc ${at}: ${miss.what}${tail}`,
        fix: miss.fix,
      });
    }
  }
  return out;
}
