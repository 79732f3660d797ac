import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { fakePublicCorpus } from '../../test/support/hf-corpus-cache.ts';
import { TraceCorpusError } from '../workload/agentic/errors.ts';
import { CORPUS_1M, CORPUS_256K } from '../workload/agentic/hf-corpus.ts';
import { type AgenticBenchOptions, agenticCorpusFiles, runAgenticBenchLocked } from './bench-agentic.ts';
import { BenchError, BenchUsageError } from './bench-point.ts';
import { acquireRunLock } from './lock.ts';

/** `infx bench --workload agentic`: the corpus from --traces FILE… or --public PREFIX, exactly one. */

describe('the corpus of infx bench --workload agentic', () => {
  it('--public PREFIX: the public corpus for the prefix from the HF cache, named as the reference loader', () => {
    const home = tmpDir('infx-hf-');
    const small = fakePublicCorpus(home, CORPUS_256K, 1);
    const full = fakePublicCorpus(home, CORPUS_1M, 2);
    const env = { HF_HOME: home };
    expect(agenticCorpusFiles({ public: 'gptoss' }, env)).toEqual({
      traces: [small],
      corpusName: 'semianalysis_cc_traces_weka_062126_256k',
    });
    expect(agenticCorpusFiles({ public: 'dsv4' }, env)).toEqual({
      traces: [full],
      corpusName: 'semianalysis_cc_traces_weka_062126',
    });
    expect(agenticCorpusFiles({ public: 'dsv4', corpusName: 'mine' }, env).corpusName).toBe('mine');
  });

  it('--traces FILE…: the files, named after the first unless --corpus-name', () => {
    expect(agenticCorpusFiles({ traces: ['/c/a.jsonl', '/c/b.jsonl'] }, {})).toEqual({
      traces: ['/c/a.jsonl', '/c/b.jsonl'],
      corpusName: 'a',
    });
    expect(agenticCorpusFiles({ traces: ['/c/a.jsonl'], corpusName: 'n' }, {}).corpusName).toBe('n');
  });

  it('both, or neither, is a usage error; --public without the corpus cached says where it looked', () => {
    expect(() => agenticCorpusFiles({ traces: ['a.jsonl'], public: 'dsv4' }, {})).toThrow(BenchUsageError);
    expect(() => agenticCorpusFiles({ traces: ['a.jsonl'], public: 'dsv4' }, {})).toThrow(
      /--traces and --public both name the corpus/,
    );
    expect(() => agenticCorpusFiles({}, {})).toThrow(/needs --traces FILE… .* or --public MODEL_PREFIX/);
    const home = tmpDir('infx-hf-');
    let err: unknown;
    try {
      agenticCorpusFiles({ public: 'kimik3' }, { HF_HOME: home });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TraceCorpusError);
    expect((err as TraceCorpusError).message).toContain(
      join(home, 'hub', 'datasets--semianalysisai--cc-traces-weka-062126', 'snapshots'),
    );
    expect((err as TraceCorpusError).hint).toContain(
      'huggingface-cli download --repo-type dataset semianalysisai/cc-traces-weka-062126',
    );
  });
});

describe('infx bench --workload agentic and its --out', () => {
  it('refuses a second bench into a folder another live bench or sweep holds, naming the holder', async () => {
    const out = tmpDir('infx-agentic-out-');
    const held = acquireRunLock(out, { command: 'infx bench --out elsewhere', create: true });
    try {
      const o = {
        baseUrl: 'http://127.0.0.1:9',
        models: ['m'],
        traces: ['t.jsonl'],
        durationS: 10,
        out,
      } as unknown as AgenticBenchOptions;
      const err = await runAgenticBenchLocked(o, { log: () => {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BenchError);
      expect((err as Error).message).toContain(`pid ${process.pid}`);
      expect((err as Error).message).toMatch(/run this command again$/);
    } finally {
      held.release();
    }
  });
});
