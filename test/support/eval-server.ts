import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * A scripted OpenAI-compatible server on 127.0.0.1 for eval tests and the eval bench: documents are
 * `Q<i>?` with answer `i`, and `behaviour(i)` says how the server answers document i.
 */

export type Behaviour = 'right' | 'wrong' | 'flaky' | 'down' | 'empty' | 'truncated' | 'reasoning';

export interface EvalServer {
  url: string;
  /** Requests received per document. */
  requests: Map<number, number>;
  /** Every request body, in arrival order. */
  bodies: Record<string, unknown>[];
  close: () => Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

function questionOf(body: Record<string, unknown>): number {
  const messages = body.messages as { content: string }[] | undefined;
  const text = messages ? (messages[messages.length - 1]?.content ?? '') : String(body.prompt ?? '');
  const all = [...text.matchAll(/Question: Q(\d+)\?/g)];
  return Number(all[all.length - 1]?.[1] ?? -1);
}

export async function startEvalServer(
  behaviour: (doc: number) => Behaviour,
  keepBodies = true,
): Promise<EvalServer> {
  const requests = new Map<number, number>();
  const bodies: Record<string, unknown>[] = [];
  const server: Server = createServer(async (req, res) => {
    // Not a model server's /v1/models: the eval runner's probe for a simulator finds none here.
    if (req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    if (keepBodies) bodies.push(body);
    const doc = questionOf(body);
    const n = (requests.get(doc) ?? 0) + 1;
    requests.set(doc, n);
    const b = behaviour(doc);
    if (b === 'down' || (b === 'flaky' && n === 1)) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"scripted failure"}');
      return;
    }
    const content =
      b === 'wrong'
        ? `Some reasoning.\n#### ${doc + 1}`
        : b === 'empty' || b === 'reasoning'
          ? ''
          : `Reasoning about ${doc}.\n#### ${doc}`;
    const message: Record<string, unknown> = { role: 'assistant', content };
    if (b === 'reasoning') message.reasoning_content = `Thinking.\n#### ${doc}`;
    const finish = b === 'truncated' ? 'length' : 'stop';
    const choice =
      req.url === '/v1/completions'
        ? { index: 0, text: content, finish_reason: finish }
        : { index: 0, message, finish_reason: finish };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [choice] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A GSM8K-format JSONL file of `count` documents `Q<i>?` → `#### i` (offset by `from`). */
export function writeGsmFile(dir: string, name: string, count: number, from = 0): string {
  const path = join(dir, name);
  const lines: string[] = [];
  for (let i = from; i < from + count; i++)
    lines.push(JSON.stringify({ question: `Q${i}?`, answer: `Work for ${i}.\n#### ${i}` }));
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
