import * as z from 'zod';

/**
 * `GET /infx/kv-blocks?hashes=H1,H2,…` on `infx sim serve`: which of these prefix-block hashes the server's
 * engines hold in their GPU KV cache now (the router's KV-event view of a backend). Hashes are the
 * engine's own (`prefixBlockHashes` over the prompt's token ids, `blockSize` tokens per block); `held[i]`
 * answers `hashes[i]`. A hash is 1 to 64 characters of
 * [0-9a-z.].
 */
export const KV_BLOCKS_PATH = '/infx/kv-blocks';
/** Per request: 512 hashes of up to 17 characters keep the request line under Node’s 16 KiB header limit. */
export const KV_BLOCKS_MAX_HASHES = 512;

export const KvBlockHashSchema = z.string().regex(/^[0-9a-z.]{1,64}$/);

export const KvBlocksResponseSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** Tokens per KV block of the engines (the router's --kv-cache-block-size must equal it). */
  blockSize: z.int().min(1),
  /** Whether the engines reuse prefix blocks at all (off: they hold none, and `held` is all false). */
  prefixCaching: z.boolean(),
  held: z.array(z.boolean()),
});
export type KvBlocksResponse = z.infer<typeof KvBlocksResponseSchema>;

/** Parses the `hashes` query value: the list, or why it is refused. Empty or absent: no hashes. */
export function parseKvBlocksQuery(value: string | null): { hashes: string[] } | { error: string } {
  if (value === null || value === '') return { hashes: [] };
  const hashes = value.split(',');
  if (hashes.length > KV_BLOCKS_MAX_HASHES)
    return {
      error: `hashes: ${hashes.length} given, at most ${KV_BLOCKS_MAX_HASHES} a request; split the query`,
    };
  const bad = hashes.findIndex((h) => !KvBlockHashSchema.safeParse(h).success);
  if (bad >= 0)
    return {
      error: `hashes[${bad}]: ${JSON.stringify(hashes[bad]!.slice(0, 80))} is not a block hash (1–64 of [0-9a-z.])`,
    };
  return { hashes };
}

/**
 * `GET /infx/kv-events?after=SEQ[&limit=N]` on `infx sim serve`: the server's KV events after sequence number
 * SEQ, oldest first: a block hash cached by the first of its engines to hold it (`stored`), or evicted by
 * the last (`removed`). What a router needs to see blocks that reached the engines by traffic it did not
 * route. The server keeps the latest KV_EVENTS_KEPT events; `reset` says events after SEQ are gone (the
 * consumer then asks `GET /infx/kv-blocks` about the hashes it cares for and goes on from `next`).
 */
export const KV_EVENTS_PATH = '/infx/kv-events';
export const KV_EVENTS_KEPT = 65_536;
export const KV_EVENTS_MAX_LIMIT = 16_384;

export const KvEventSchema = z.strictObject({
  /** 1, 2, 3, … in the order the events happened. */
  seq: z.int().positive(),
  kind: z.enum(['stored', 'removed']),
  hash: KvBlockHashSchema,
});
export type KvEvent = z.infer<typeof KvEventSchema>;

export const KvEventsResponseSchema = z.strictObject({
  schemaVersion: z.literal(1),
  blockSize: z.int().min(1),
  prefixCaching: z.boolean(),
  /** The sequence number the next event will get. */
  next: z.int().positive(),
  /** Events after `after` were dropped before this answer: resynchronize. */
  reset: z.boolean(),
  events: z.array(KvEventSchema).max(KV_EVENTS_MAX_LIMIT),
});
export type KvEventsResponse = z.infer<typeof KvEventsResponseSchema>;

/** Parses `after` (default 0) and `limit` (default and at most KV_EVENTS_MAX_LIMIT), or says why not. */
export function parseKvEventsQuery(
  params: URLSearchParams,
): { after: number; limit: number } | { error: string; param: string } {
  const int = (name: string, dflt: number, min: number, max: number) => {
    const raw = params.get(name);
    if (raw === null || raw === '') return dflt;
    const n = Number(raw);
    return /^\d+$/.test(raw) && n >= min && n <= max ? n : null;
  };
  const after = int('after', 0, 0, Number.MAX_SAFE_INTEGER);
  if (after === null) return { error: 'after: not a sequence number (an integer >= 0)', param: 'after' };
  const limit = int('limit', KV_EVENTS_MAX_LIMIT, 0, KV_EVENTS_MAX_LIMIT);
  if (limit === null)
    return { error: `limit: not an integer from 0 to ${KV_EVENTS_MAX_LIMIT}`, param: 'limit' };
  return { after, limit };
}
