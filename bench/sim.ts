/**
 * Simulated results that do not depend on the host (issue 12): six points of bench/data/sim-points.yaml
 * (dense and MoE; tensor parallel and DP-attention with expert parallelism; concurrency 1 and 64 or more)
 * through the real sweep path (`infx sweep`, a fresh `infx sim serve` per point, the benchmark client),
 * at the automatic time scale and at 50x, on an idle machine and with two CPU-bound processes this bench
 * starts itself. Each figure is printed next to `infx sim predict` of the same rows (as measured: the
 * method infx bench uses — N requests from an idle engine, the whole window — and the steady state), and
 * each loaded run next to the idle run of the same scale, measured in this command.
 *
 *   npm run bench:sim                   # everything (about 10 minutes on a 2-core machine)
 *   npm run bench:sim -- --scales auto  # one scale only (auto, or a number)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { predictPoint } from '../src/sim/engine/predict.ts';
import { setupOfRow } from '../src/sim/engine/rows.ts';
import { startCpuLoad } from '../test/cpu-load.ts';

const CONFIG = 'bench/data/sim-points.yaml';
const RUNNERS = 'examples/runners.yaml';
const PREDICT_TARGET = 0.05;
const LOADED_TARGET = 0.02;

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const SCALES = (flag('scales') ?? 'auto,50').split(',');

interface Figures {
  tput: number | null;
  output: number | null;
  intvty: number | null;
  ttft: number | null;
  e2el: number | null;
}
const FIGURES: [keyof Figures, string][] = [
  ['tput', 'tok/s/GPU'],
  ['output', 'output tok/s/GPU'],
  ['intvty', 'tok/s/user (median)'],
  ['ttft', 'TTFT ms (median)'],
  ['e2el', 'E2EL ms (median)'],
];

function infx(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/infx.js', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** `infx sim predict --format json` of the rows, per point (expName, runner, tp, ep, conc). */
async function predict(rows: string, asMeasured: boolean): Promise<Map<string, Figures>> {
  const args = ['sim', 'predict', '--format', 'json'];
  if (asMeasured) args.push('--as-measured');
  const out = await infx(args, rows);
  if (out.code !== 0) throw new Error(`sim predict failed: ${out.stderr}`);
  const map = new Map<string, Figures>();
  for (const o of JSON.parse(out.stdout) as Record<string, unknown>[]) {
    const p = o.prediction as Record<string, unknown> & {
      ttftMs: { median: number };
      e2eMs: { median: number };
    };
    map.set(keyOf(o.expName, o.runner, o.tp, o.ep, o.conc), {
      tput: p.throughputPerGpu as number,
      output: p.outputThroughputPerGpu as number,
      intvty: p.interactivity as number,
      ttft: p.ttftMs.median,
      e2el: p.e2eMs.median,
    });
  }
  return map;
}

const keyOf = (...parts: unknown[]) => parts.join('/');

interface Measured {
  figures: Figures;
  /** The same requests (lengths, order, concurrency) through the engine in virtual time, no HTTP. */
  replay: Figures;
  valid: boolean;
  scale: number | null;
  wallS: number;
  lag: string;
}

/** The results of a sweep's run directory, by the same key as predict's. */
function readRun(runDir: string): Map<string, Measured> {
  const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as {
    points: { pointId: string; conc: number; row: Record<string, unknown> }[];
  };
  const out = new Map<string, Measured>();
  for (const p of manifest.points) {
    const dir = join(runDir, 'points', p.pointId);
    const attempts = readdirSync(dir)
      .filter((d) => d.startsWith('attempt-'))
      .sort();
    const last = attempts.at(-1);
    const file = last ? join(dir, last, 'result.json') : '';
    if (!last || !existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, 'utf8'));
    const l = r.engine.lag;
    const requests = readFileSync(join(dir, last, 'requests.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((q) => q.phase === 'benchmark' && q.ok)
      .sort((a, b) => a.index - b.index)
      .map((q) => ({
        promptTokens: q.inputTokens.server ?? q.inputTokens.client,
        outputTokens: q.outputTokens.server ?? q.outputTokens.client,
      }));
    const setup = setupOfRow(p.row);
    if ('prefill' in setup || 'replicas' in setup)
      throw new Error('bench:sim replays single-engine points only');
    const pr = predictPoint({
      ...setup,
      isl: p.row.isl as number,
      osl: p.row.osl as number,
      concurrency: p.conc,
      method: 'as-measured',
      requests,
    });
    out.set(keyOf(p.row['exp-name'], p.row.runner, p.row.tp, p.row.ep, p.conc), {
      figures: {
        tput: r.throughput.perGpu.total,
        output: r.throughput.perGpu.output,
        intvty: r.interactivity.median,
        ttft: r.latency.ttftMs.median,
        e2el: r.latency.e2elMs.median,
      },
      replay: {
        tput: pr.throughputPerGpu,
        output: pr.outputThroughputPerGpu,
        intvty: pr.interactivity,
        ttft: pr.ttftMs.median,
        e2el: pr.e2eMs.median,
      },
      valid: r.valid,
      scale: r.engine.timeScale,
      wallS: r.timing.wallDurationS,
      lag: l
        ? `${l.missedDeadlines}/${l.steps} late, behind ${(l.behindMs / 1000).toFixed(1)} s`
        : 'no lag data',
    });
  }
  return out;
}

async function sweep(
  tmp: string,
  scale: string,
  loaded: boolean,
): Promise<{ runDir: string; wallS: number }> {
  const runId = `${scale}-${loaded ? 'loaded' : 'idle'}`;
  const load = loaded ? startCpuLoad(2) : null;
  const t0 = performance.now();
  try {
    const args = [
      'sweep',
      '--config-files',
      CONFIG,
      '--runner-config',
      RUNNERS,
      '--out',
      tmp,
      '--run-id',
      runId,
      '--sim-time-scale',
      scale,
    ];
    const out = await infx(args);
    writeFileSync(join(tmp, `${runId}.log`), out.stderr);
    if (out.code !== 0)
      console.error(`note: infx sweep (${runId}) exited ${out.code}; see ${join(tmp, `${runId}.log`)}`);
  } finally {
    await load?.stop();
  }
  return { runDir: join(tmp, runId), wallS: (performance.now() - t0) / 1000 };
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;
const num = (v: number | null) => (v === null ? 'n/a' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const dev = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b - 1);

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'infx-bench-sim-'));
  try {
    const matrix = await infx(['matrix', 'full-sweep', '--config-files', CONFIG, '--runner-config', RUNNERS]);
    if (matrix.code !== 0) throw new Error(`infx matrix failed: ${matrix.stderr}`);
    const asMeasured = await predict(matrix.stdout, true);
    const steady = await predict(matrix.stdout, false);
    const runs: {
      label: string;
      scale: string;
      loaded: boolean;
      data: Map<string, Measured>;
      wallS: number;
    }[] = [];
    for (const scale of SCALES)
      for (const loaded of [false, true]) {
        const label = `${scale === 'auto' ? 'auto' : `${scale}x`} ${loaded ? 'loaded' : 'idle'}`;
        process.stderr.write(`bench:sim: sweeping ${label}...\n`);
        const { runDir, wallS } = await sweep(tmp, scale, loaded);
        runs.push({ label, scale, loaded, data: readRun(runDir), wallS });
        process.stderr.write(`bench:sim: ${label} took ${wallS.toFixed(0)} s\n`);
      }

    let worstReplay = 0;
    let worstPredict = 0;
    let worstSteady = 0;
    let worstLoaded = 0;
    let invalid = 0;
    const track = (d: number | null, worst: number) => (d === null ? worst : Math.max(worst, Math.abs(d)));
    console.log(
      'Each cell: the measured figure, then its difference from the same requests replayed through the engine ' +
        'in virtual time (r) and from `infx sim predict --as-measured` (p).',
    );
    for (const [key, pred] of asMeasured) {
      console.log(`\n${key}`);
      const header = ['figure'.padEnd(20), 'predict'.padStart(8), 'steady'.padStart(8)];
      for (const r of runs) header.push(r.label.padStart(24));
      header.push('  loaded/idle');
      console.log(header.join(' '));
      for (const [f, label] of FIGURES) {
        const st = steady.get(key)?.[f] ?? null;
        const cells = [label.padEnd(20), num(pred[f]).padStart(8), num(st).padStart(8)];
        const ratios: string[] = [];
        for (const r of runs) {
          const m = r.data.get(key);
          const v = m?.figures[f] ?? null;
          const dr = dev(v, m?.replay[f] ?? null);
          const dp = dev(v, pred[f]);
          worstReplay = track(dr, worstReplay);
          worstPredict = track(dp, worstPredict);
          if (f === 'tput' || f === 'output' || f === 'intvty') worstSteady = track(dev(v, st), worstSteady);
          cells.push(
            `${num(v)} r${dr === null ? '?' : pct(dr)} p${dp === null ? '?' : pct(dp)}`.padStart(24),
          );
          if (r.loaded) {
            const idle =
              runs.find((x) => x.scale === r.scale && !x.loaded)?.data.get(key)?.figures[f] ?? null;
            const ratio = dev(v, idle);
            worstLoaded = track(ratio, worstLoaded);
            ratios.push(ratio === null ? 'n/a' : (1 + ratio).toFixed(4));
          }
        }
        console.log(`${cells.join(' ')}  ${ratios.join(' ')}`);
      }
      for (const r of runs) {
        const m = r.data.get(key);
        if (m && !m.valid) invalid++;
        console.log(
          `  ${r.label}: ${m ? `${m.valid ? 'valid' : 'NOT VALID'}, ${m.scale}x, ${m.wallS.toFixed(1)} s of wall time, ${m.lag}` : 'no result'}`,
        );
      }
    }
    console.log('');
    for (const r of runs) console.log(`${r.label}: the whole sweep took ${r.wallS.toFixed(0)} s`);
    const verdict = (x: number, t: number) =>
      `${(100 * x).toFixed(2)}% (target ±${100 * t}%: ${x <= t ? 'met' : 'NOT met'})`;
    console.log(
      `worst figure vs the same requests replayed in virtual time: ${verdict(worstReplay, PREDICT_TARGET)}`,
    );
    console.log(`worst figure vs infx sim predict --as-measured: ${verdict(worstPredict, PREDICT_TARGET)}`);
    console.log(
      `worst throughput or interactivity vs infx sim predict (steady state): ${(100 * worstSteady).toFixed(2)}%`,
    );
    console.log(`worst loaded/idle difference: ${verdict(worstLoaded, LOADED_TARGET)}`);
    console.log(`points not valid: ${invalid}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
