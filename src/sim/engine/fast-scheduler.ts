import { FastBase } from './fast-base.ts';
import {
  blocksOf,
  crossings,
  DECODE,
  DONE,
  decodeTotals,
  eachTotals,
  type FSeq,
  mod16,
  PREFILL,
  WAITING,
} from './fast-seq.ts';
import type { StepInfo } from './types.ts';

export { fastEngineSupports } from './fast-base.ts';

/**
 * The fast engine's scheduler: engine.ts's continuous batching with the decodes kept as one group
 * (fast-engine.ts describes the model and adds event skipping). Subclassed, not used alone.
 */

export class FastScheduler extends FastBase {
  /** Blocks-worth of tokens a decode holds now (before this step's growth). */
  protected override resOf(s: FSeq): number {
    return this.sampler || s.fresh ? s.res : s.base + this.tRes + this.width;
  }

  override beginStep(): StepInfo | null {
    if (this.pending) throw new Error('beginStep() called twice without commitStep()');
    if (!this.hasWork()) return null;
    const w = this.width;
    const T = this.T;
    let preempted = 0;
    let stopped = false;
    // Decodes: grow every one by the tokens it emitted last step (fresh ones: their first lookahead).
    if (this.alive > 0 && this.sampler) {
      const r = this.growEach();
      preempted += r.preempted;
      stopped = r.stopped;
    } else if (this.alive > 0) {
      let need = crossings(this.cls, this.tRes, T - this.tRes);
      for (const f of this.fresh) need += blocksOf(f.base + T + w) - blocksOf(f.res);
      if (need <= this.free) this.free -= need;
      else {
        const r = this.growOneByOne();
        preempted += r.preempted;
        stopped = r.stopped;
      }
      for (const f of this.fresh) {
        if (f.state !== DECODE) continue;
        f.fresh = false;
        this.cls[mod16(f.base + w)]! += 1;
      }
      this.fresh = [];
      this.tRes = T;
    }
    const decodes = this.alive;
    const inBudget = this.decodesInBudget;
    let budget = this.maxNumBatchedTokens - (inBudget ? decodes * w : 0);
    const batch = this.batch;
    batch.length = 0;
    if (!stopped) {
      for (let i = 0; i < this.prefills.length && (budget > 0 || !inBudget); i++) {
        const p = this.prefills[i]!;
        // A recomputed request one token short of its length is a decode to engine.ts: it drafts, and
        // stays outside the budget when decodes do.
        const last = p.length - p.computed === 1 && p.output > 0;
        const decoding = this.sampler !== null && last;
        const outside = last && !inBudget;
        const n = decoding
          ? inBudget
            ? Math.min(w, budget)
            : w
          : outside
            ? 1
            : Math.min(p.length - p.computed, budget);
        if (n <= 0) continue;
        p.drafting = decoding && n > 1;
        const need = blocksOf(p.computed + n) - blocksOf(p.res);
        let self = false;
        while (need > this.free) {
          const v = this.lastRunning()!;
          this.preempt(v);
          preempted++;
          if (v === p) {
            self = true;
            break;
          }
        }
        if (self) break;
        this.free -= need;
        p.res = p.computed + n;
        p.scheduled = n;
        batch.push(p);
        if (!outside) budget -= n;
      }
    }
    const open = this.balancer?.open(this.running > 0) ?? true; // every step, as engine.ts (dp-balancer.ts)
    while (
      open &&
      preempted === 0 &&
      (budget > 0 || !inBudget) &&
      this.waiting.length > this.waitHead &&
      this.running < this.maxNumSeqs
    ) {
      const s = this.waiting[this.waitHead]!;
      const transferred = s.req.kvTransferred === true && s.preemptions === 0;
      const n = transferred ? 1 : Math.min(s.length, budget);
      if (n <= 0) break;
      const blocks = transferred ? blocksOf(s.length) : blocksOf(n);
      if (blocks > this.free) break;
      this.free -= blocks;
      this.waitHead++;
      this.balancer?.left(s.rank);
      s.computed = transferred ? s.length - 1 : 0;
      s.res = s.computed + n;
      s.scheduled = n;
      s.drafting = false;
      s.state = PREFILL;
      s.ord = this.ordNext++;
      this.prefills.push(s);
      batch.push(s);
      if (inBudget || !transferred) budget -= n;
    }
    if (this.waitHead > 1024 && this.waitHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitHead);
      this.waitHead = 0;
    }
    const info = this.timeStep(batch, decodes, preempted);
    this.pending = { info, decodes, batch };
    return info;
  }

  protected timeStep(batch: readonly FSeq[], decodes: number, preempted: number): StepInfo {
    const w = this.width;
    const T = this.T;
    const topK = this.topK;
    const totals = this.scratch;
    if (this.sampler) {
      if (!this.eachReady) eachTotals(totals, this.decs, w, topK);
      this.eachReady = false;
    } else decodeTotals(totals, this.capP, this.capK, T, w, topK);
    totals.tokens = decodes * w;
    totals.seqs = decodes + batch.length;
    // The decodes' sums came in above; the batch's prefill chunks are added below.
    totals.prefillPairs = 0;
    totals.prefillTokens = 0;
    totals.prefillChunks = 0;
    totals.queued = this.waiting.length - this.waitHead;
    let prefill = 0;
    let drafting = w > 1 ? decodes : 0;
    for (const s of batch) {
      const n = s.scheduled;
      totals.tokens += n;
      prefill += n;
      const pairs = n * Math.min(s.computed + (n + 1) / 2, topK);
      totals.pairs += pairs;
      // As PerfModel.breakdown tells them: an entry feeding more than the decode width is a prefill chunk.
      if (n > w) {
        totals.prefillPairs += pairs;
        totals.prefillTokens += n;
        totals.prefillChunks++;
      }
      totals.kvTokens += Math.min(s.computed + n, topK * n);
      if (s.drafting) drafting++;
    }
    const durationMs = this.opts.timer.stepTimeTotals!(totals, drafting);
    return {
      startMs: this.now,
      durationMs,
      endMs: this.now + durationMs,
      seqs: totals.seqs,
      prefillTokens: prefill,
      decodeTokens: decodes * w,
      preempted,
      kvLoadMs: 0,
    };
  }

  /** The decode pass of engine.ts, one sequence at a time, for a step whose growth runs out of blocks. */
  protected growOneByOne(): { preempted: number; stopped: boolean } {
    const w = this.width;
    let preempted = 0;
    for (let i = 0; i < this.decs.length; i++) {
      const d = this.decs[i]!;
      if (d.state !== DECODE) continue;
      const to = this.sampler ? d.computed + w : d.base + this.T + w;
      const need = blocksOf(to) - blocksOf(this.resOf(d));
      while (need > this.free) {
        const v = this.lastRunning()!;
        this.preempt(v);
        preempted++;
        if (v === d) return { preempted, stopped: true };
      }
      this.free -= need;
      if (this.sampler) d.res = to;
    }
    return { preempted, stopped: false };
  }

  /** Per-decode growth (with draws each): every decode reserves computed + width. */
  protected growEach(): { preempted: number; stopped: boolean } {
    const w = this.width;
    const topK = this.topK;
    let need = 0;
    let pairs = 0;
    let kv = 0;
    const sums = this.nextSums;
    if (sums.valid) {
      need = sums.need;
      pairs = sums.pairs;
      kv = sums.kv;
    } else
      for (const d of this.decs) {
        if (d.state !== DECODE) continue;
        const c = d.computed;
        need += blocksOf(c + w) - blocksOf(d.res);
        pairs += w * Math.min(c + (w + 1) / 2, topK);
        kv += Math.min(c + w, topK * w);
      }
    sums.valid = false;
    if (need > this.free) return this.growOneByOne();
    // The reservations (computed + width) are recorded as each decode emits (emitEach).
    this.free -= need;
    this.scratch.pairs = pairs;
    this.scratch.kvTokens = kv;
    this.eachReady = true;
    return { preempted: 0, stopped: false };
  }

  /** growEach summed the decodes' pairs and KV tokens into the scratch totals for this step. */
  private eachReady = false;
  /**
   * With per-decode draws: the next step's growEach sums (blocks to reserve, attention pairs, KV tokens),
   * added up by the commit as it draws, then by each join, in the running order growEach walks, so they
   * are the same numbers; valid until a decode leaves outside a draw (preemption, abort).
   */
  private readonly nextSums = { valid: false, need: 0, pairs: 0, kv: 0 };

  /** Adds one decode's terms to nextSums (see there). */
  private addNext(d: FSeq): void {
    const w = this.width;
    const c = d.computed;
    const sums = this.nextSums;
    sums.need += blocksOf(c + w) - blocksOf(d.res);
    sums.pairs += w * Math.min(c + (w + 1) / 2, this.topK);
    sums.kv += Math.min(c + w, this.topK * w);
  }

  protected lastRunning(): FSeq | undefined {
    if (this.prefills.length > 0) return this.prefills[this.prefills.length - 1];
    while (this.decs.length > 0 && this.decs[this.decs.length - 1]!.state !== DECODE) this.decs.pop();
    return this.decs[this.decs.length - 1];
  }

  protected preempt(s: FSeq): void {
    if (s.state === PREFILL) {
      this.prefills.pop();
      this.free += blocksOf(s.res);
    } else {
      this.free += blocksOf(this.resOf(s));
      if (!this.sampler) s.output = this.lockstepOutput(s);
      this.dropDecode(s);
      this.decs.pop();
    }
    s.state = WAITING;
    s.computed = 0;
    s.res = 0;
    s.preemptions++;
    this.stats.preemptions++;
    if (this.waitHead > 0) this.waiting[--this.waitHead] = s;
    else this.waiting.unshift(s);
    this.balancer?.queued(s.rank);
  }

  /** Takes a decode out of the group (finish, preemption, abort). */
  protected override dropDecode(s: FSeq): void {
    s.gen++;
    this.alive--;
    if (this.sampler) {
      s.state = WAITING;
      this.nextSums.valid = false;
      return;
    }
    this.capP.remove(s);
    this.capK.remove(s);
    if (s.fresh) {
      const i = this.fresh.indexOf(s);
      if (i >= 0) this.fresh.splice(i, 1);
      s.fresh = false;
    } else this.cls[mod16(s.base + this.width)]! -= 1;
    s.state = WAITING;
  }

  /** A request that finished its prefill (or recompute) joins the decodes. */
  protected joinDecode(s: FSeq): void {
    const T = this.T;
    s.state = DECODE;
    if (this.sampler) {
      s.gen++;
      this.alive++;
      this.decs.push(s);
      if (this.nextSums.valid) this.addNext(s);
      return;
    }
    s.base = s.computed - T;
    s.outBase = s.output - T;
    s.fresh = true;
    s.gen++;
    this.alive++;
    this.decs.push(s);
    this.fresh.push(s);
    this.capP.add(s, T);
    this.capK.add(s, T);
    s.finishAt = this.finishClock(s);
    this.finishes.push(s.finishAt, s.ord, s, s.gen);
  }

  override commitStep(): void {
    const p = this.pending;
    if (!p) throw new Error('commitStep() without beginStep()');
    this.pending = null;
    this.now = p.info.endMs;
    this.stats.steps++;
    // engine.ts fires finishes in running order: decodes (admission order), then prefills.
    const done: FSeq[] = [];
    if (p.decodes > 0 && this.sampler) this.emitEach(done);
    else if (p.decodes > 0) {
      const e = this.emitCount(this.decodeSteps++);
      const T2 = this.T + e;
      let emitted = p.decodes * e;
      while (this.finishes.topKey() <= T2) {
        const gen = this.finishes.topTag();
        const s = this.finishes.pop()!;
        if (s.state !== DECODE || s.gen !== gen) continue;
        // Counted on the clock up to T2; its own tokens end at its target (the same with shared draws).
        emitted += s.target - s.outBase - T2;
        this.free += blocksOf(this.resOf(s));
        this.dropDecode(s);
        s.output = s.target;
        done.push(s);
      }
      if (done.length > 1) done.sort((a, b) => a.ord - b.ord);
      this.T = T2;
      this.stats.generation += emitted;
    }
    // The scheduled prefills are the first batch.length of them (engine.ts schedules in running order);
    // the ones still prefilling keep their places.
    const n = p.batch.length;
    const pre = this.prefills;
    let kept = 0;
    for (let i = 0; i < pre.length; i++) {
      const s = pre[i]!;
      if (i < n && s.drafting) {
        const e = Math.min(this.sampler!.sample(s.scheduled - 1), s.target - s.output);
        s.computed += e;
        s.output += e;
        this.stats.generation += e;
        if (s.output >= s.target) {
          this.free += blocksOf(s.res);
          done.push(s);
        } else this.joinDecode(s);
        continue;
      }
      if (i < n) s.computed += s.scheduled;
      if (i >= n || s.computed !== s.length) {
        pre[kept++] = s;
        continue;
      }
      if (s.firstTokenMs === null) {
        s.firstTokenMs = this.now;
        this.stats.prompt += s.req.promptTokens;
        this.hooks.onToken?.(s.req.id, s.output + 1, this.now);
      }
      s.output += 1;
      this.stats.generation += 1;
      if (s.output >= s.target) {
        this.free += blocksOf(s.res);
        done.push(s);
      } else this.joinDecode(s);
    }
    pre.length = kept;
    // Drop the entries of decodes gone: lazily in lockstep; soon with per-decode draws (walked every step).
    const dead = this.decs.length - this.alive;
    if (dead > 64 && (this.alive < dead || (this.sampler !== null && dead * 8 > this.alive)))
      this.decs = this.decs.filter((d) => d.state === DECODE);
    for (const s of done) {
      s.state = DONE;
      this.stats.finished++;
      this.finish(s, s.output >= s.req.maxTokens ? 'length' : 'stop');
    }
  }

  /** Draws each decode's acceptance in running order (engine.ts's commit), finishing those that are done. */
  protected emitEach(done: FSeq[]): void {
    const w = this.width;
    const topK = this.topK;
    const sampler = this.sampler!;
    let need = 0;
    let pairs = 0;
    let kv = 0;
    for (const d of this.decs) {
      if (d.state !== DECODE) continue;
      d.res = d.computed + w;
      const e = Math.min(sampler.sample(w - 1), d.target - d.output);
      const c = d.computed + e;
      d.computed = c;
      d.output += e;
      this.stats.generation += e;
      if (d.output < d.target) {
        need += blocksOf(c + w) - blocksOf(d.res);
        pairs += w * Math.min(c + (w + 1) / 2, topK);
        kv += Math.min(c + w, topK * w);
        continue;
      }
      this.free += blocksOf(d.res);
      this.dropDecode(d);
      done.push(d);
    }
    const sums = this.nextSums;
    sums.valid = true;
    sums.need = need;
    sums.pairs = pairs;
    sums.kv = kv;
  }
}
