import type * as z from 'zod';
import { AgenticFieldsSchema } from './agentic-fields.ts';
import { RequestRecordSchema } from './request-record.ts';

/**
 * One agentic (AgentX trace replay) request as infx writes it in `requests.jsonl`: the ordinary request
 * record (schema/request-record.ts: times, tokens, outcome, with the same names and meanings) whose
 * optional `agentic` fields (schema/agentic-fields.ts) are present. `phase: 'benchmark'` is the
 * reference's `benchmark_phase: "profiling"`.
 */

export {
  type AgenticBranch,
  AgenticBranchSchema,
  type AgenticFields,
  AgenticFieldsSchema,
  type TheoreticalPrefix,
  TheoreticalPrefixSchema,
} from './agentic-fields.ts';

export const AgenticRequestRecordSchema = RequestRecordSchema.extend({ agentic: AgenticFieldsSchema });
export type AgenticRequestRecord = z.infer<typeof AgenticRequestRecordSchema>;
