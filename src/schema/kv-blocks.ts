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
