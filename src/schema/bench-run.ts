import * as z from 'zod';
import { RunIdSchema } from './run-dir.ts';

/**
 * `bench.json` beside the manifest of a run directory written by `infx bench` (a run against a server
 * infx did not start). The manifest holds the plan; this file holds what `infx bench` was asked that the
 * plan has no field for (request rate, ignore-eos, …), so a later `infx bench --out` into the same folder
 * can tell the same run (resume it) from another one (refuse it) and name the flag that differs.
 */

export const BENCH_RUN_SCHEMA_VERSION = 1;

export const BenchRunSchema = z.strictObject({
  kind: z.literal('bench-run'),
  schemaVersion: z.literal(BENCH_RUN_SCHEMA_VERSION),
  runId: RunIdSchema,
  createdAt: z.string().describe('ISO 8601 UTC time, the manifest createdAt'),
  /** Where the server was when the run was created; not identity (a server may move ports). */
  baseUrl: z.string(),
  /**
   * The flags that define the run, by flag name (`--isl` → `"1024"`), each as the text a person would
   * type: the same run has equal identities, and a difference is named by its flag.
   */
  identity: z.record(z.string(), z.string()),
});

export type BenchRun = z.infer<typeof BenchRunSchema>;
