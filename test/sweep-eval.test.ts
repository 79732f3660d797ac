import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EvalResultsSchema } from '../src/schema/evals.ts';
import { PointAttemptSchema, PointStatusSchema } from '../src/schema/run-dir.ts';
import { openStore } from '../src/store/db.ts';
import { verifyRun } from '../src/store/verify.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { writeGsmFile } from './support/eval-server.ts';
import { FAST, infx, readJson, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * run-eval rows in a sweep on the simulated engine (the built binary: npm run build first): GSM8K after
 * the benchmark on the same engine, results in the attempt's eval/ folder, the threshold verdict in
 * status.json. The simulated engine's score is labelled simulated.
 */

const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));

describe.skipIf(!built)(
  `infx sweep with run-eval rows${built ? '' : ' (not built: run npm run build)'}`,
  () => {
    const out = tmpDir();
    const test = writeGsmFile(out, 'test.jsonl', 12);
    const train = writeGsmFile(out, 'train.jsonl', 8, 100);
    const matrix = writeMatrix(out, [
      smallRow({ conc: 2, 'run-eval': true, 'exp-name': 'llama8b_256_64_eval' }),
      smallRow({ conc: 4 }),
    ]);
    const evalFlags = ['--eval-dataset', test, '--eval-fewshot-dataset', train];
    const attempt = (runId: string, conc: number) => {
      const points = join(out, runId, 'points');
      const manifest = readJson(join(out, runId, 'manifest.json')) as {
        points: { pointId: string; conc: number }[];
      };
      const id = manifest.points.find((p) => p.conc === conc)?.pointId as string;
      return join(points, id, 'attempt-1');
    };

    it('runs the eval after the benchmark and records a passing verdict', async () => {
      const r = await infx([
        'sweep',
        '--matrix',
        matrix,
        '--out',
        out,
        '--run-id',
        'pass',
        ...FAST,
        ...evalFlags,
        '--accuracy',
        '1',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const dir = attempt('pass', 2);
      const status = PointStatusSchema.parse(readJson(join(dir, 'status.json')));
      expect(status.status).toBe('ok');
      expect(status.eval).toEqual({
        task: 'gsm8k',
        samples: 12,
        failed: 0,
        scores: { 'strict-match': 1, 'flexible-extract': 1 },
        // llama8b has no per-model threshold: the reference's gsm8k default.
        threshold: 0.9,
        source: 'default',
        rule: 'default',
        pass: true,
        simulated: true,
        resultsFile: 'eval/results.json',
      });
      const results = EvalResultsSchema.parse(readJson(join(dir, 'eval', 'results.json')));
      expect((results.results.gsm8k as Record<string, unknown>)['exact_match,strict-match']).toBe(1);
      expect(
        readFileSync(join(dir, 'eval', 'samples_gsm8k.jsonl'), 'utf8')
          .trim()
          .split('\n'),
      ).toHaveLength(12);
      // The benchmark ran too, on the same engine.
      expect(existsSync(join(dir, 'result.json'))).toBe(true);
      const spec = PointAttemptSchema.parse(readJson(join(dir, 'point.json')));
      expect(spec.eval).toMatchObject({ maxTokens: 12288, contextLength: 16384, simAccuracy: 1 });
      expect(spec.launch?.processes[0]?.argv).toEqual(
        expect.arrayContaining(['--accuracy', '1', '--eval-dataset', test]),
      );
      // The store keeps the verdict (with lm-eval's stderr) and every graded sample.
      const ingest = await infx(['ingest', join(out, 'pass'), '--db', join(out, 'store.sqlite')]);
      expect(ingest.code, ingest.stderr).toBe(0);
      const store = await openStore(join(out, 'store.sqlite'));
      try {
        const evals = await store.db.selectFrom('point_evals').selectAll().execute();
        expect(evals).toHaveLength(1);
        expect(evals[0]).toMatchObject({
          run_id: 'pass',
          conc: 2,
          task: 'gsm8k',
          eval_only: 0,
          strict_match: 1,
          flexible_extract: 1,
          strict_match_stderr: 0,
          threshold: 0.9,
          threshold_rule: 'default',
          pass: 1,
          simulated: 1,
          samples: 12,
          failed_samples: 0,
        });
        const samples = await store.db.selectFrom('eval_samples').selectAll().orderBy('doc_id').execute();
        const samples0Response = samples[3]!.response;
        expect(samples.map((s) => s.doc_id)).toEqual([...Array(12).keys()]);
        expect(samples[0]).toMatchObject({ status: 'ok', strict_correct: 1, flexible_correct: 1 });
        // infx verify compares the stored verdict and samples with the run directory's eval files.
        const ok = await verifyRun(store, 'pass', join(out, 'pass'));
        expect([ok.ok, ok.checked.point_evals, ok.checked.eval_samples]).toEqual([true, 1, 12]);
        await store.db
          .updateTable('eval_samples')
          .set({ response: 'edited' })
          .where('doc_id', '=', 3)
          .execute();
        const edited = await verifyRun(store, 'pass', join(out, 'pass'));
        expect(edited.differences).toEqual([
          expect.objectContaining({ table: 'eval_samples', column: 'response', db: '"edited"' }),
        ]);
        await store.db
          .updateTable('eval_samples')
          .set({ response: samples0Response })
          .where('doc_id', '=', 3)
          .execute();
        // The question asked, not the few-shot turns before it.
        expect(samples[0]!.question).toMatch(/^Question: .*\nEnd your response with the answer/s);
        expect(samples[0]!.question).not.toContain('Answer: ');
      } finally {
        await store.close();
      }
      // A row without run-eval runs no eval.
      expect(PointStatusSchema.parse(readJson(join(attempt('pass', 4), 'status.json'))).eval).toBeUndefined();
    }, 120_000);

    it('marks a point whose eval falls below its threshold', async () => {
      const r = await infx([
        'sweep',
        '--matrix',
        matrix,
        '--out',
        out,
        '--run-id',
        'fail',
        ...FAST,
        ...evalFlags,
        '--accuracy',
        '0',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /conc2_h100: attempt 1 ok, but its eval gsm8k \(simulated\) is below its threshold 0\.9/,
      );
      // The point's own log says it.
      expect(readFileSync(join(attempt('fail', 2), 'infx.log'), 'utf8')).toContain('below its threshold');
      const status = PointStatusSchema.parse(readJson(join(attempt('fail', 2), 'status.json')));
      expect(status.eval).toMatchObject({ pass: false, simulated: true, threshold: 0.9 });
      expect(status.eval?.scores['strict-match']).toBe(0);
      expect(status.reason).toMatch(
        /eval gsm8k \(simulated\): strict-match 0\.0000, .* < 0\.9 from default: below its threshold/,
      );
      // Stored, the run is not official, and ingest says why.
      const ingest = await infx(['ingest', join(out, 'fail'), '--db', join(out, 'store.sqlite')]);
      expect(ingest.stdout + ingest.stderr).toMatch(
        /1 point\(s\) fell below their accuracy eval threshold \(llama8b_256_64_eval_\S+conc2_h100\): the run is not official/,
      );
      const pass = await infx(['ingest', join(out, 'pass'), '--db', join(out, 'store2.sqlite')]);
      expect(pass.stdout + pass.stderr).not.toContain('below their accuracy eval threshold');
    }, 120_000);

    it('keeps a run with a point below its eval threshold out of the official results', async () => {
      // As if a real engine had served both runs (a simulated run is unofficial anyway): the results say so.
      const asReal = (runId: string) => {
        for (const conc of [2, 4]) {
          const file = join(attempt(runId, conc), 'result.json');
          const r = readJson(file) as { engine: Record<string, unknown> };
          r.engine = {
            ...r.engine,
            kind: 'real',
            simulator: null,
            timeScale: null,
            clock: 'wall',
            lockstep: false,
            lag: null,
          };
          writeFileSync(file, JSON.stringify(r));
        }
      };
      asReal('pass');
      asReal('fail');
      const pass = await infx(['ingest', join(out, 'pass'), '--db', join(out, 'real-pass.sqlite')]);
      expect(pass.stdout).toContain('run pass (official)');
      const fail = await infx(['ingest', join(out, 'fail'), '--db', join(out, 'real-fail.sqlite')]);
      expect(fail.stdout).toContain('run fail (unofficial)');
    }, 60_000);

    it('runs an eval-only row without a benchmark; the store keeps its verdict and no result', async () => {
      const only = writeMatrix(
        out,
        [smallRow({ conc: 2, 'run-eval': true, 'eval-only': true, 'exp-name': 'llama8b_256_64_evalonly' })],
        'eval-only.json',
      );
      const r = await infx([
        'sweep',
        '--matrix',
        only,
        '--out',
        out,
        '--run-id',
        'only',
        ...FAST,
        ...evalFlags,
        '--accuracy',
        '1',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const dir = attempt('only', 2);
      const status = PointStatusSchema.parse(readJson(join(dir, 'status.json')));
      expect(status).toMatchObject({ status: 'ok', valid: null, eval: { pass: true, samples: 12 } });
      expect(existsSync(join(dir, 'result.json'))).toBe(false);
      expect(existsSync(join(dir, 'eval', 'samples_gsm8k.jsonl'))).toBe(true);
      // The point plans the eval's context (16384), above the row's 576.
      const spec = PointAttemptSchema.parse(readJson(join(dir, 'point.json')));
      expect(spec.eval).toMatchObject({ evalOnly: true, contextLength: 16384 });
      // sweep status gives the verdict where a benchmarked point gives its numbers.
      const st = await infx(['sweep', 'status', join(out, 'only')]);
      expect(st.stdout).toMatch(
        /done .*evalonly.*; eval gsm8k \(simulated\): strict-match 1\.0000, .* >= 0\.9 from default/,
      );
      const ingest = await infx([
        'ingest',
        join(out, 'only'),
        '--db',
        join(out, 'only.sqlite'),
        '--format',
        'json',
      ]);
      expect(ingest.code, ingest.stderr).toBe(0);
      const report = JSON.parse(ingest.stdout) as { ingested: number; issues: unknown[]; ok: boolean };
      expect(report).toMatchObject({ ingested: 1, issues: [], ok: true });
      const store = await openStore(join(out, 'only.sqlite'));
      try {
        expect(await store.db.selectFrom('results').selectAll().execute()).toEqual([]);
        const points = await store.db.selectFrom('points').selectAll().execute();
        expect(points[0]).toMatchObject({ outcome: 'ingested', chosen_attempt: 1 });
        const evals = await store.db.selectFrom('point_evals').selectAll().execute();
        expect(evals[0]).toMatchObject({ eval_only: 1, pass: 1, samples: 12 });
        // Ingesting again changes nothing.
        const again = await infx([
          'ingest',
          join(out, 'only'),
          '--db',
          join(out, 'only.sqlite'),
          '--format',
          'json',
        ]);
        expect(JSON.parse(again.stdout).points).toEqual({ new: 0, updated: 0, unchanged: 1 });
      } finally {
        await store.close();
      }
    }, 120_000);

    it('without --eval-dataset, lists run-eval rows as not run, saying why', async () => {
      const r = await infx([
        'sweep',
        '--matrix',
        matrix,
        '--out',
        out,
        '--run-id',
        'none',
        ...FAST,
        '--dry-run',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).toContain('give infx sweep --eval-dataset FILE');
    });
  },
);
