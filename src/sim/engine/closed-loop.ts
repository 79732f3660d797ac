import { requestNumber } from './id-table.ts';
import { Prng } from './prng.ts';
import type { EngineHooks, SimRequest } from './types.ts';

/**
 * A closed-loop client in virtual time, for anything that takes requests and reports tokens through
 * hooks (one engine, or a disaggregated cluster): `concurrency` requests in flight, each replaced when it
 * finishes, lengths drawn as the reference client draws them, the first `concurrency` completions
 * discarded as warmup.
 */

export interface LoopTarget {
  hooks: EngineHooks;
  submit(req: SimRequest, atMs: number): void;
  /** Runs events in time order until `stop()` says so (asked before each event), or nothing is left. */
  runUntil(stop: () => boolean): void;
  /** The KV usage that counts (0..1): read before each event of the window for its peak. */
  readonly kvUsage: number;
  /**
   * Set by the loop: requests arrive only as it submits them, at the start and from onFinish at the
   * finish's time, none shorter than minPromptTokens (what lets a target skip steps nothing can reach).
   */
  closedArrivals?: { minPromptTokens: number } | null;
}

export interface LoopResult {
  ttftMs: number[];
  tpotMs: number[];
  /** The output tokens of each request of tpotMs, in its order. */
  tpotOutputs: number[];
  e2eMs: number[];
  /** Each measured completion's output tokens, in the order of ttftMs. */
  outputs: number[];
  outputTokens: number;
  inputTokens: number;
  windowMs: number;
  /** The highest KV usage seen in the window (before each event), 0..1. */
  peakKvUsage: number;
  /** The probe stopped the loop during the warm-up (nothing measured). */
  probed: boolean;
  /** The watch stopped the loop during the measured window (what it measured is partial). */
  stopped: boolean;
}

export function closedLoop(
  target: LoopTarget,
  opts: {
    concurrency: number;
    isl: number;
    osl: number;
    measured: number;
    rangeRatio?: number;
    seed?: number;
    /** As `infx bench` measures: no warmup, `measured` requests in all, the window from the first arrival. */
    asMeasured?: boolean;
    /** As measured: these requests in this order instead of drawn lengths (`measured` is their count). */
    requests?: readonly { promptTokens: number; outputTokens: number }[];
    /** Completions discarded before the window; default `concurrency` (every user has cycled once). */
    warmup?: number;
    /**
     * Called before each event of the measured window (after its first completion); true stops the loop
     * there (what the watch checks has already failed, so the rest of the window would be wasted).
     */
    watch?: () => boolean;
    /** Asked before each event of the warm-up, with the completions so far: true stops the loop there. */
    probe?: (finished: number) => boolean;
  },
): LoopResult {
  const rng = new Prng(opts.seed ?? 0);
  const r = opts.rangeRatio ?? 0.8;
  const draw = (l: number) => rng.int(Math.max(1, Math.floor(l * r)), l);
  const warmup = opts.asMeasured ? 0 : (opts.warmup ?? opts.concurrency);
  const total = opts.asMeasured ? opts.measured : warmup + opts.measured + opts.concurrency;
  // Per request, by its number (ids are `r<n>`): arrival, prompt length, first token (NaN until it comes).
  const arrivalOf = new Float64Array(total);
  const islOf = new Float64Array(total);
  const firstOf = new Float64Array(total).fill(Number.NaN);
  const out: LoopResult = {
    ttftMs: [],
    tpotMs: [],
    tpotOutputs: [],
    e2eMs: [],
    outputs: [],
    outputTokens: 0,
    inputTokens: 0,
    windowMs: 0,
    peakKvUsage: 0,
    probed: false,
    stopped: false,
  };
  let submitted = 0;
  let finished = 0;
  let windowStart = 0;
  const submit = (atMs: number) => {
    const given = opts.asMeasured ? opts.requests?.[submitted] : undefined;
    const n = submitted++;
    const isl = given?.promptTokens ?? draw(opts.isl);
    const osl = given?.outputTokens ?? draw(opts.osl);
    arrivalOf[n] = atMs;
    islOf[n] = isl;
    target.submit({ id: `r${n}`, promptTokens: isl, maxTokens: osl, ignoreEos: true }, atMs);
  };
  target.hooks = {
    onToken: (id, _total, t) => {
      const n = requestNumber(id);
      if (Number.isNaN(firstOf[n]!)) firstOf[n] = t;
    },
    onFinish: (id, info) => {
      const n = requestNumber(id);
      finished++;
      if (finished === warmup) windowStart = info.finishMs;
      else if (finished > warmup && finished <= warmup + opts.measured) {
        const first = Number.isNaN(firstOf[n]!) ? info.finishMs : firstOf[n]!;
        out.ttftMs.push(first - arrivalOf[n]!);
        out.e2eMs.push(info.finishMs - arrivalOf[n]!);
        out.outputs.push(info.outputTokens);
        if (info.outputTokens > 1) {
          out.tpotMs.push((info.finishMs - first) / (info.outputTokens - 1));
          out.tpotOutputs.push(info.outputTokens);
        }
        out.outputTokens += info.outputTokens;
        out.inputTokens += islOf[n]!;
        out.windowMs = info.finishMs - windowStart;
      }
      if (submitted < total) submit(info.finishMs);
    },
  };
  const given = opts.asMeasured ? opts.requests : undefined;
  const minPromptTokens = given?.length
    ? given.reduce((m, g) => Math.min(m, g.promptTokens), Number.POSITIVE_INFINITY)
    : Math.max(1, Math.floor(opts.isl * r));
  target.closedArrivals = { minPromptTokens };
  for (let i = 0; i < Math.min(opts.concurrency, total); i++) submit(0);
  // The window closes with its last completion: what is still in flight then is not measured.
  target.runUntil(() => {
    if (finished < warmup) {
      out.probed = opts.probe?.(finished) ?? false;
      return out.probed;
    }
    out.peakKvUsage = Math.max(out.peakKvUsage, target.kvUsage);
    if (finished > warmup && opts.watch?.()) {
      out.stopped = true;
      return true;
    }
    return finished >= warmup + opts.measured;
  });
  return out;
}
