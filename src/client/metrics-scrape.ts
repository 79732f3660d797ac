/**
 * One read of a server's Prometheus `/metrics` (vLLM, SGLang, infx's simulated engine): the text, or null
 * when the server has none or it could not be read in time. Bounded in time and size: a hostile or slow
 * server cannot hold the run or fill memory.
 */

const TIMEOUT_MS = 5000;
const MAX_BYTES = 16 * 1024 * 1024;

export async function scrapeMetrics(baseUrl: URL, apiKey: string | null): Promise<string | null> {
  try {
    const res = await fetch(new URL('/metrics', baseUrl), {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    });
    if (res.status !== 200 || res.body === null) {
      await res.body?.cancel();
      return null;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_BYTES) return null;
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch {
    return null;
  }
}
