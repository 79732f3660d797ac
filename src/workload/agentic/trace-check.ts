import type { AgenticTrace } from '../../schema/agentic-trace.ts';

/**
 * A hand-written check of a parsed trace line against `AgenticTraceSchema` (schema/agentic-trace.ts),
 * ten times faster than zod on a public-size line (millions of hash ids): zod spends most of a cold corpus
 * read there. It only ever answers "valid" for a value the schema accepts, and then leaves the value as
 * the schema would give it (`output_length` read as `out` where `out` is absent, in place); on anything
 * else it answers false and the caller runs zod, which words the error. So the schema stays the one
 * contract, and a change to it that this check does not know only costs speed, never a wrong accept —
 * provided the check is kept at least as strict as the schema (corpus-check.test.ts compares the two).
 */

type Rec = Record<string, unknown>;

const isRecord = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isToken = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isSeconds = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isFiniteOrNull = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v));
const isOptString = (v: unknown) => v === undefined || typeof v === 'string';
const isOptNullableString = (v: unknown) => v === undefined || v === null || typeof v === 'string';

function isStrings(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const s of v) if (typeof s !== 'string') return false;
  return true;
}

const isOptStrings = (v: unknown) => v === undefined || isStrings(v);

function isHashIds(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const id = v[i];
    if (!Number.isSafeInteger(id) || id < 0) return false;
  }
  return true;
}

/** The schema's preprocess: the older `output_length` spelling read as `out`. */
function readOut(call: Rec): void {
  if (!('out' in call) && 'output_length' in call) call.out = call.output_length;
}

function isApiCall(call: Rec): boolean {
  return (
    (call.type === 'n' || call.type === 's') &&
    isSeconds(call.t) &&
    isOptString(call.model) &&
    isToken(call.in) &&
    isToken(call.out) &&
    isHashIds(call.hash_ids) &&
    isOptStrings(call.input_types) &&
    isOptStrings(call.output_types) &&
    isOptNullableString(call.stop) &&
    isFiniteOrNull(call.api_time) &&
    isFiniteOrNull(call.think_time)
  );
}

function isSubagent(entry: Rec): boolean {
  if (
    !(
      isSeconds(entry.t) &&
      typeof entry.agent_id === 'string' &&
      entry.agent_id.length >= 1 &&
      isOptNullableString(entry.subagent_type) &&
      isOptNullableString(entry.status) &&
      isOptStrings(entry.models) &&
      isFiniteOrNull(entry.duration_ms) &&
      isFiniteOrNull(entry.total_tokens) &&
      Array.isArray(entry.requests)
    )
  )
    return false;
  for (const call of entry.requests as unknown[]) {
    if (!isRecord(call)) return false;
    readOut(call);
    if (!isApiCall(call)) return false;
  }
  return true;
}

/**
 * Whether `value` is a trace the schema accepts; when true, `value` is now exactly what the schema's
 * parse returns. When false, `value` may have been given `out` fields, as the schema's preprocess gives
 * them: zod may be run on it as it is.
 */
export function isTrace(value: unknown): value is AgenticTrace {
  if (!isRecord(value)) return false;
  if (
    !(
      typeof value.id === 'string' &&
      value.id.length >= 1 &&
      isOptStrings(value.models) &&
      Number.isSafeInteger(value.block_size) &&
      (value.block_size as number) > 0 &&
      isOptString(value.hash_id_scope) &&
      isToken(value.tool_tokens) &&
      isToken(value.system_tokens) &&
      Array.isArray(value.requests) &&
      value.requests.length >= 1
    )
  )
    return false;
  for (const entry of value.requests as unknown[]) {
    if (!isRecord(entry)) return false;
    if (entry.type === 'subagent') {
      if (!isSubagent(entry)) return false;
    } else {
      readOut(entry);
      if (!isApiCall(entry)) return false;
    }
  }
  return true;
}
