import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { agenticRow, fixedRow } from '../../test/rows.ts';
import { fakePublicCorpus } from '../../test/support/hf-corpus-cache.ts';
import type { EngineLaunch } from '../schema/engine-launch.ts';
import { REFERENCE_BENCH } from '../schema/reference-client.ts';
import type { PointSpec } from '../schema/run-dir.ts';
import { CORPUS_1M, CORPUS_256K } from '../workload/agentic/hf-corpus.ts';
import { agenticPlanDefaults, withPublicCorpora } from './agentic-corpus.ts';
import { benchPoint } from './point-bench.ts';
import { readPointSpec } from './point-spec.ts';
import { type PlanPointsOptions, planPoints } from './points.ts';

/** Which corpus each agentic row replays: --traces for all, else its model prefix's public one from the HF cache. */

const options = (agentic: PlanPointsOptions['agentic']): PlanPointsOptions => ({
  runId: 'r1',
  canary: false,
  bench: { ...REFERENCE_BENCH, seed: 7, requestTimeoutS: 600 },
  engine: { kind: 'sim', container: 'none', simTimeScale: 10, readyTimeoutS: 60, acceptance: 'golden' },
  faults: [],
  agentic,
});
const settings = { maxContextTokens: null, fast: true, durationS: 60 };
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

const rows = () => [
  agenticRow(8, 4, { 'model-prefix': 'gptoss', 'exp-name': 'gptoss_tp8_conc4_kvnone' }),
  agenticRow(8, 2, { 'model-prefix': 'dsv4', 'exp-name': 'dsv4_tp8_conc2_kvnone' }),
  agenticRow(4, 2, { 'model-prefix': 'qwen3.5', 'exp-name': 'qwen_tp4_conc2_kvnone' }),
  fixedRow(),
];

async function plan(env: NodeJS.ProcessEnv, files?: string[]) {
  const agentic = await withPublicCorpora(rows(), await agenticPlanDefaults(files, settings), env);
  return { agentic, ...planPoints(rows(), options(agentic)) };
}

const tracesOf = (points: readonly PointSpec[], prefix: string) => {
  const p = points.find((q) => q.row['model-prefix'] === prefix);
  if (p?.bench.kind !== 'agentic-coding') throw new Error(`no agentic point of ${prefix}`);
  return p.bench.traces;
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the agentic rows of a sweep without --traces', () => {
  it('replay the public corpus of their model prefix: the 1M one for dsv4, the 256k one otherwise', async () => {
    const home = tmpDir('infx-hf-');
    const small = fakePublicCorpus(home, CORPUS_256K, 1);
    const full = fakePublicCorpus(home, CORPUS_1M, 2);
    const { agentic, points, skipped } = await plan({ HF_HOME: home });
    expect(skipped).toEqual([]);
    expect(tracesOf(points, 'gptoss')).toEqual({
      name: 'semianalysis_cc_traces_weka_062126_256k',
      files: [{ path: small, sha256: sha(small) }],
    });
    expect(tracesOf(points, 'dsv4')).toEqual({
      name: 'semianalysis_cc_traces_weka_062126',
      files: [{ path: full, sha256: sha(full) }],
    });
    expect(sha(small)).not.toBe(sha(full));
    // Two prefixes on one corpus: hashed once, the same planned corpus.
    expect(agentic?.publicCorpora?.get('qwen3.5')).toBe(agentic?.publicCorpora?.get('gptoss'));
    // The settings still apply to every agentic point.
    for (const p of points)
      if (p.bench.kind === 'agentic-coding') expect(p.bench).toMatchObject({ fast: true, durationS: 60 });
  });

  it('are listed as not run where their corpus is not in the cache, saying where it looked and how to get it', async () => {
    const home = tmpDir('infx-hf-');
    fakePublicCorpus(home, CORPUS_256K, 1);
    const { points, skipped } = await plan({ HF_HOME: home });
    expect(points.map((p) => p.row['model-prefix']).sort()).toEqual(['gptoss', 'qwen3.5', 'x']);
    expect(skipped).toHaveLength(1);
    const reason = skipped[0]?.reason ?? '';
    expect(skipped[0]?.expName).toBe('dsv4_tp8_conc2_kvnone');
    expect(reason).toContain('semianalysisai/cc-traces-weka-062126 (semianalysis_cc_traces_weka_062126)');
    expect(reason).toContain(
      join(home, 'hub', 'datasets--semianalysisai--cc-traces-weka-062126', 'snapshots'),
    );
    expect(reason).toContain(
      'huggingface-cli download --repo-type dataset semianalysisai/cc-traces-weka-062126',
    );
    expect(reason).toContain('--traces');
  });

  it('with --traces all replay the files given, whatever the cache holds', async () => {
    const home = tmpDir('infx-hf-');
    fakePublicCorpus(home, CORPUS_256K, 1);
    const own = join(tmpDir('infx-own-'), 'mine.jsonl');
    writeFileSync(own, readFileSync(fakePublicCorpus(tmpDir('infx-hf-'), CORPUS_256K, 3)));
    const { points, skipped } = await plan({ HF_HOME: home }, [own]);
    expect(skipped).toEqual([]);
    for (const prefix of ['gptoss', 'dsv4', 'qwen3.5'])
      expect(tracesOf(points, prefix)).toEqual({ name: 'mine', files: [{ path: own, sha256: sha(own) }] });
  });

  it('a matrix row given to infx sweep point replays its public corpus too', async () => {
    const home = tmpDir('infx-hf-');
    const full = fakePublicCorpus(home, CORPUS_1M, 2);
    vi.stubEnv('HF_HOME', home);
    vi.stubEnv('HF_HUB_CACHE', '');
    const file = join(home, 'row.json');
    writeFileSync(file, JSON.stringify(rows()[1]));
    const { agentic, ...defaults } = options(await agenticPlanDefaults(undefined, settings));
    const spec = await readPointSpec(file, { ...defaults, agentic });
    expect(spec.bench.kind === 'agentic-coding' && spec.bench.traces).toEqual({
      name: CORPUS_1M.loader,
      files: [{ path: full, sha256: sha(full) }],
    });
  });

  it('a point whose public corpus changed since planning refuses to run', async () => {
    const home = tmpDir('infx-hf-');
    const small = fakePublicCorpus(home, CORPUS_256K, 1);
    fakePublicCorpus(home, CORPUS_1M, 2);
    const { points } = await plan({ HF_HOME: home });
    const point = points.find((p) => p.row['model-prefix'] === 'gptoss') as PointSpec;
    appendFileSync(small, '\n');
    const launch = { baseUrl: 'http://127.0.0.1:9', servedModel: 'm' } as EngineLaunch;
    const context = {
      outDir: tmpDir('infx-out-'),
      version: 't',
      log: () => {},
      signal: new AbortController().signal,
    };
    await expect(benchPoint(point, launch, context)).rejects.toThrow(
      `trace file ${small} changed since the sweep was planned`,
    );
  });
});
