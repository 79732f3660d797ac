import { goldenAcceptanceLength, recipeSpec } from '../../catalog/golden-al.ts';
import { findAccelerator } from '../../catalog/index.ts';
import { InfxError } from '../../schema/errors.ts';
import {
  acceptanceProbability,
  expectedAcceptance,
  MAX_DRAFT_TOKENS,
  type SpecMethod,
} from './spec-decode.ts';

/**
 * A matrix row's speculative-decoding shape: how many tokens the reference's recipe drafts per step and
 * the acceptance length to simulate, each with where it came from (shown by `sim predict --explain`).
 *
 * Draft tokens, first found wins: the user's --draft-tokens; what the row states (`DECODE_MTP_SIZE=N` in
 * a worker's additional-settings, or a recipe file named `…mtpN…`); the draft length the golden table
 * gives the row's forced acceptance (`SYNTHETIC_ACCEPTANCE_LENGTH`, which the reference's multi-node
 * recipes pair with their own draft length); the single-node script's rule (below); 3.
 * Acceptance length: the user's --acceptance-length; the row's forced one; the golden table at that draft
 * length; DeepSeek-R1's published estimate; otherwise the chain model (spec-decode.ts) with the per-draft
 * acceptance of AL 2.5 at 3 drafts, at that draft length.
 */

export class SpecRecipeError extends InfxError {
  override name = 'SpecRecipeError';
}

export const DEFAULT_DRAFT_TOKENS = 3;
/** The acceptance length at 3 draft tokens where no table has the model: the typical DeepSeek-R1 MTP-3 figure. */
export const DEFAULT_AL = 2.5;

/**
 * DeepSeek-R1 has no golden table. One draft: 1 + the 85–90 % acceptance of the second token in the
 * DeepSeek-V3 technical report. Three drafts: DEFAULT_AL. Two: the chain through both, its later drafts
 * accepted at the one rate q that joins them (0.875 · (1 + q + q²) = 1.5, q ≈ 0.536): 1.875 + 0.875 q.
 */
const DSR1_AL: Readonly<Record<number, number>> = { 1: 1.875, 2: 2.34, 3: DEFAULT_AL };

export interface SpecShape {
  method: SpecMethod;
  draftTokens: number;
  acceptanceLength: number;
  draftSource: string;
  alSource: string;
}

type Row = Record<string, unknown>;

const str = (r: Row, k: string): string => (typeof r[k] === 'string' ? (r[k] as string) : '');
const isRecord = (x: unknown): x is Row => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Every additional-settings entry of the row and its workers. */
function settingsOf(r: Row): string[] {
  return [r, r.prefill, r.decode].flatMap((p) =>
    isRecord(p) && Array.isArray(p['additional-settings'])
      ? (p['additional-settings'] as unknown[]).filter((s): s is string => typeof s === 'string')
      : [],
  );
}

function statedDraftTokens(settings: string[], where: string): { n: number; source: string } | null {
  for (const s of settings) {
    if (!s.startsWith('DECODE_MTP_SIZE=')) continue;
    const n = Number(s.slice('DECODE_MTP_SIZE='.length));
    if (!Number.isInteger(n) || n < 1 || n > MAX_DRAFT_TOKENS) {
      throw new SpecRecipeError(
        `${where}: ${s} is not a draft length (an integer from 1 to ${MAX_DRAFT_TOKENS})`,
      );
    }
    return { n, source: `the row: ${s}` };
  }
  for (const s of settings) {
    if (!s.startsWith('CONFIG_FILE=')) continue;
    const base =
      s
        .slice('CONFIG_FILE='.length)
        .split(/[/:]/)
        .find((p) => /mtp\d/i.test(p)) ?? '';
    const m = /(?:^|[-_])mtp(\d+)(?:[-_.]|$)/i.exec(base);
    // mtp0 names a recipe without speculative decoding; a length out of range is not one to read.
    const n = m ? Number(m[1]) : 0;
    if (n >= 1 && n <= MAX_DRAFT_TOKENS) return { n, source: `the row's recipe file name (${base})` };
  }
  return null;
}

function forcedAcceptance(settings: string[], where: string): number | null {
  for (const s of settings) {
    const m = /^SYNTHETIC_ACCEPTANCE_LENGTH=(.*)$/.exec(s);
    if (!m) continue;
    const al = Number(m[1]);
    if (!Number.isFinite(al) || al < 1) {
      throw new SpecRecipeError(`${where}: ${s} is not an acceptance length (a number >= 1)`);
    }
    return al;
  }
  return null;
}

function vendorOf(hardware: string): string | undefined {
  return findAccelerator(hardware)?.vendor;
}

/**
 * The draft length of the reference's single-node scripts (`benchmarks/single_node/fixed_seq_len/*mtp.sh`),
 * where it is not 3: DeepSeek-R1 on TensorRT-LLM drafts 1 with DP-attention; on SGLang, NVIDIA GPUs draft
 * 2 (`--speculative-num-steps 2`), AMD's 3; DeepSeek-V4 on TensorRT-LLM drafts 2 from ISL 4096 at 128
 * users and more, and on vLLM 2.
 */
function scriptDraftTokens(r: Row, conc: number | undefined): { n: number; source: string } | null {
  const prefix = str(r, 'model-prefix');
  const framework = str(r, 'framework');
  const dpAttn = r['dp-attn'] === true;
  const isl = typeof r.isl === 'number' ? r.isl : 0;
  if (prefix === 'dsr1' && framework === 'trt') {
    return dpAttn
      ? { n: 1, source: 'dsr1_*_trt_mtp.sh: MTP=1 with DP-attention' }
      : { n: 3, source: 'dsr1_*_trt_mtp.sh: MTP=3 without DP-attention' };
  }
  if (prefix === 'dsr1' && framework === 'sglang' && vendorOf(str(r, 'runner')) === 'nvidia') {
    return { n: 2, source: 'dsr1_*_mtp.sh (SGLang, NVIDIA): --speculative-num-steps 2' };
  }
  if (prefix === 'dsv4' && framework === 'trt' && conc !== undefined) {
    return isl >= 4096 && conc >= 128
      ? { n: 2, source: 'dsv4_*_trt_mtp.sh: MTP 2 at ISL >= 4096 and >= 128 users' }
      : { n: 3, source: 'dsv4_*_trt_mtp.sh: MTP 3 below ISL 4096 or 128 users' };
  }
  if (prefix === 'dsv4' && framework === 'vllm') {
    return { n: 2, source: 'dsv4_*_vllm_mtp.sh: num_speculative_tokens 2' };
  }
  return null;
}

/** The golden draft length whose acceptance length is `al` (to the table's two decimals), or null. */
function goldenDraftTokensOf(prefix: string, al: number): number | null {
  const method = recipeSpec(prefix).method;
  for (let k = 1; k <= 8; k++) {
    const g = goldenAcceptanceLength(prefix, method, k);
    if (g !== null && Math.abs(g - al) < 0.005) return k;
  }
  return null;
}

/** The acceptance length to simulate at `k` drafts for a model prefix (empty: no model table), and its source. */
export function acceptanceLengthAt(prefix: string, k: number): { al: number; source: string } {
  const golden = goldenAcceptanceLength(prefix, recipeSpec(prefix).method, k);
  if (golden !== null)
    return { al: golden, source: `golden table (${prefix}, ${k} draft${k > 1 ? 's' : ''}, thinking on)` };
  if (prefix === 'dsr1' && DSR1_AL[k] !== undefined) {
    return {
      al: DSR1_AL[k]!,
      source: `DeepSeek-R1 estimate at ${k} draft${k > 1 ? 's' : ''} (spec-recipe.ts)`,
    };
  }
  const p = acceptanceProbability(DEFAULT_DRAFT_TOKENS, DEFAULT_AL);
  return {
    al: Math.round(expectedAcceptance(p, k) * 1000) / 1000,
    source: `chain model at ${k} draft${k > 1 ? 's' : ''}, per-draft acceptance ${p.toFixed(3)} (AL ${DEFAULT_AL} at 3 drafts)`,
  };
}

export interface SpecOverrides {
  draftTokens?: number;
  acceptanceLength?: number;
}

/** The row's speculative-decoding shape at one point (`conc`: its users; a script's rule may read them). */
export function specOfRow(
  r: Row,
  method: SpecMethod,
  opts: SpecOverrides,
  conc: number | undefined,
  where: string,
): SpecShape {
  const prefix = str(r, 'model-prefix');
  const settings = settingsOf(r);
  const forced = forcedAcceptance(settings, where);
  const single = !isRecord(r.prefill) && !isRecord(r.decode);
  const fromForced = forced !== null ? goldenDraftTokensOf(prefix, forced) : null;
  const draft =
    opts.draftTokens !== undefined
      ? { n: opts.draftTokens, source: '--draft-tokens' }
      : (statedDraftTokens(settings, where) ??
        (fromForced !== null
          ? {
              n: fromForced,
              source: `the golden table's draft length for SYNTHETIC_ACCEPTANCE_LENGTH=${forced}`,
            }
          : null) ??
        (single && method === 'mtp' ? scriptDraftTokens(r, conc) : null) ?? {
          n: DEFAULT_DRAFT_TOKENS,
          source: 'default',
        });
  const al =
    opts.acceptanceLength !== undefined
      ? { al: opts.acceptanceLength, source: '--acceptance-length' }
      : forced !== null
        ? { al: forced, source: `the row: SYNTHETIC_ACCEPTANCE_LENGTH=${forced} (forced by the recipe)` }
        : acceptanceLengthAt(prefix, draft.n);
  if (forced !== null && opts.acceptanceLength === undefined && forced > draft.n + 1) {
    throw new SpecRecipeError(
      `${where}: SYNTHETIC_ACCEPTANCE_LENGTH=${forced} is impossible with ${draft.n} draft token${draft.n > 1 ? 's' : ''} ` +
        `(${draft.source}); it must be at most ${draft.n + 1} (pass --draft-tokens)`,
    );
  }
  return {
    method,
    draftTokens: draft.n,
    acceptanceLength: al.al,
    draftSource: draft.source,
    alSource: al.source,
  };
}

/** Speculative decoding given by flags alone (`sim serve --spec-decoding`): no row, so no model table. */
export function specOfFlags(method: SpecMethod, draftTokens?: number, acceptanceLength?: number) {
  const k = draftTokens ?? DEFAULT_DRAFT_TOKENS;
  return { method, draftTokens: k, acceptanceLength: acceptanceLength ?? acceptanceLengthAt('', k).al };
}
