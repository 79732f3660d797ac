import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS_1M } from '../src/workload/agentic/hf-corpus.ts';
import { tmpDir, writeYaml } from './helpers.ts';
import { AGENTIC_SIM_CONFIG } from './support/agentic-config.ts';
import { fakePublicCorpus } from './support/hf-corpus-cache.ts';
import { infx } from './sweep-helpers.ts';

/**
 * The public AgentX corpus from the local Hugging Face cache, as a user meets it (bin/infx.js: `npm run
 * build` first): `infx sweep` without --traces, `infx bench --workload agentic --public PREFIX`.
 */

const CONFIG = AGENTIC_SIM_CONFIG;

describe('infx sweep without --traces', () => {
  it('plans an agentic row on the public corpus of its prefix found in the HF cache (dsv4: the 1M one)', async () => {
    const dir = tmpDir('infx-hf-sweep-');
    const config = writeYaml(dir, 'agentic.yaml', CONFIG);
    const sweep = [
      'sweep',
      '--config-files',
      config,
      '--runner-config',
      'examples/runners.yaml',
      '--dry-run',
    ];
    const env = { HF_HOME: join(dir, 'hf'), HF_HUB_CACHE: '' };
    const before = await infx(sweep, env);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain('1 row skipped');
    expect(before.stdout).toContain(
      'huggingface-cli download --repo-type dataset semianalysisai/cc-traces-weka-062126 ',
    );
    fakePublicCorpus(join(dir, 'hf'), CORPUS_1M, 2);
    const after = await infx(sweep, env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/: 1 points?,/);
    expect(after.stdout).not.toContain('skipped');
  });
});

const BENCH = [
  'bench',
  '--workload',
  'agentic',
  '--base-url',
  'http://127.0.0.1:9',
  '--model',
  'm',
  '--concurrency',
  '1',
];

describe('infx bench --workload agentic --public', () => {
  it('refuses --public together with --traces: a usage error, exit 2', async () => {
    const r = await infx([...BENCH, '--public', 'dsv4', '--traces', 'a.jsonl', '--out', tmpDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--traces and --public both name the corpus: give one');
  });

  it('exits 1 naming the dataset, where it looked and the download command when the cache lacks it', async () => {
    const home = tmpDir('infx-hf-');
    const r = await infx([...BENCH, '--public', 'dsv4', '--out', tmpDir()], {
      HF_HOME: home,
      HF_HUB_CACHE: '',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'corpus semianalysisai/cc-traces-weka-062126 (semianalysis_cc_traces_weka_062126)',
    );
    expect(r.stderr).toContain(join(home, 'hub', 'datasets--semianalysisai--cc-traces-weka-062126'));
    expect(r.stderr).toContain(
      'hint: infx never downloads it; fetch a copy first (it is public, no token needed): huggingface-cli download --repo-type dataset semianalysisai/cc-traces-weka-062126',
    );
  });
});
