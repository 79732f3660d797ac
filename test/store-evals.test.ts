import { describe, expect, it } from 'vitest';
import { writeEvals } from '../src/store/write-evals.ts';
import { BACKENDS, freshStore, requirePostgres } from './store-helpers.ts';
import { verdict } from './support/eval-verdict.ts';

/** Eval verdicts and samples written on both backends: replaced whole when they change, kept when gone. */

requirePostgres();

describe.each(BACKENDS)('writeEvals (%s)', (backend) => {
  it('replaces a changed eval’s samples, keeps them when the files are gone, and writes nothing unchanged', async () => {
    const store = await freshStore(backend);
    {
      const db = store.db;
      await db
        .insertInto('runs')
        .values({
          run_id: 'r1',
          created_at: 'c',
          infx_version: 'v',
          host: 'h',
          source_kind: 'matrix',
          source_files: '[]',
          executor: 'local',
          seed: 1,
          status: 'unofficial',
          planned_points: 1,
          ingested_points: 1,
          failed_points: 0,
          missing_points: 0,
          ingested_at: 'i',
          manifest_sha256: 's',
          manifest_json: '{}',
          simulated_results: 0,
          real_results: 0,
          provenance_json: null,
          pr_number: null,
          sweep_active: 0,
        })
        .execute();
      const cfg = Object.fromEntries(
        ['prefill', 'decode'].flatMap((p) =>
          ['tp', 'ep', 'dp_attn', 'pp', 'dcp', 'pcp', 'workers', 'gpus'].map((f) => [`${p}_${f}`, 1]),
        ),
      );
      await db
        .insertInto('configs')
        .values({
          config_key: 'k',
          model: 'm',
          hardware: 'h',
          framework: 'f',
          precision: 'p',
          spec_decoding: 'none',
          disagg: 0,
          multi_node: 0,
          isl: 1,
          osl: 1,
          benchmark_type: 'fixed_seq_len',
          kv_offload: null,
          engine_kind: 'simulated',
          ...cfg,
        } as never)
        .execute();
      await db
        .insertInto('points')
        .values({
          run_id: 'r1',
          point_id: 'p1',
          point_index: 0,
          config_key: 'k',
          conc: 2,
          gpus: 1,
          image: 'i',
          bucket: 'b',
          outcome: 'ingested',
          chosen_attempt: 1,
          attempts: 1,
          phase: null,
          reason: null,
        })
        .execute();
      const t = { db, backend: store.backend, sqlite: store.sqlite };
      const rows = (right: boolean) =>
        [0, 1, 2].map((doc) => ({
          run_id: 'r1',
          point_id: 'p1',
          doc_id: doc,
          status: 'ok',
          question: `Q${doc}`,
          target: String(doc),
          response: null,
          finish_reason: null,
          strict_answer: '',
          flexible_answer: '',
          strict_correct: right ? 1 : 0,
          flexible_correct: right ? 1 : 0,
          tries: 1,
          error: null,
        }));
      expect([...(await writeEvals(t, 'r1', [verdict()], rows(false)))]).toEqual(['p1']);
      expect([...(await writeEvals(t, 'r1', [verdict()], rows(false)))]).toEqual([]);
      // A new attempt's verdict replaces the samples whole.
      expect([...(await writeEvals(t, 'r1', [verdict({ attempt: 2, pass: 1 })], rows(true)))]).toEqual([
        'p1',
      ]);
      const stored = await db.selectFrom('eval_samples').select('strict_correct').execute();
      expect(stored.map((s) => s.strict_correct)).toEqual([1, 1, 1]);
      // Samples the run directory no longer yields are kept.
      await writeEvals(t, 'r1', [verdict({ attempt: 2, pass: 1 })], []);
      expect(await db.selectFrom('eval_samples').select('doc_id').execute()).toHaveLength(3);
      const v = await db.selectFrom('point_evals').selectAll().execute();
      expect(v.map((r) => [r.attempt, r.pass])).toEqual([[2, 1]]);
    }
  });
});
