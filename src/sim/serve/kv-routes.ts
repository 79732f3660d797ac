import type http from 'node:http';
import {
  KV_BLOCKS_PATH,
  KV_EVENTS_PATH,
  type KvBlocksResponse,
  type KvEventsResponse,
  parseKvBlocksQuery,
  parseKvEventsQuery,
} from '../../schema/kv-blocks.ts';
import { BLOCK_SIZE } from '../engine/kv-cache.ts';
import { errorBody } from '../openai-wire.ts';
import type { Backend } from './backend.ts';
import { KvEventFeed } from './kv-events.ts';

/**
 * A server's KV view for routers: `GET /infx/kv-blocks` (which of these hashes the engines hold now) and
 * `GET /infx/kv-events` (what they cached and evicted since a sequence number; the feed starts with the
 * server, so a consumer from `after=0` sees every block it ever cached while the ring keeps it).
 */
export function kvRoutes(
  backend: Backend,
  json: (res: http.ServerResponse, status: number, body: unknown) => void,
): (req: http.IncomingMessage, res: http.ServerResponse, path: string) => boolean {
  const prefixCaching = backend.resolved.engineOptions.prefixCaching ?? false;
  const feed = new KvEventFeed();
  if (prefixCaching) backend.watchBlocks(feed.listener);
  const bad = (res: http.ServerResponse, message: string, param: string) =>
    json(res, 400, errorBody(message, 'invalid_request_error', 400, param));
  return (req, res, path) => {
    if (req.method !== 'GET' || (path !== KV_BLOCKS_PATH && path !== KV_EVENTS_PATH)) return false;
    const params = new URL(req.url ?? '/', 'http://x').searchParams;
    if (path === KV_BLOCKS_PATH) {
      const q = parseKvBlocksQuery(params.get('hashes'));
      if ('error' in q) bad(res, q.error, 'hashes');
      else {
        const body: KvBlocksResponse = {
          schemaVersion: 1,
          blockSize: BLOCK_SIZE,
          prefixCaching,
          held: q.hashes.map((h) => backend.holdsBlock(h)),
        };
        json(res, 200, body);
      }
      return true;
    }
    const q = parseKvEventsQuery(params);
    if ('error' in q) bad(res, q.error, q.param);
    else {
      const body: KvEventsResponse = {
        schemaVersion: 1,
        blockSize: BLOCK_SIZE,
        prefixCaching,
        next: feed.next,
        ...feed.since(q.after, q.limit),
      };
      json(res, 200, body);
    }
    return true;
  };
}
