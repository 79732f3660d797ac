import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenErrorMessage } from './server.ts';

describe('listenErrorMessage', () => {
  it('turns a taken port into advice, and leaves other errors alone', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    const second = createServer();
    const err = await new Promise<Error>((r) => second.once('error', r).listen(port, '127.0.0.1'));
    taken.close();
    expect(listenErrorMessage(err, '127.0.0.1', port)).toBe(
      `cannot listen on 127.0.0.1:${port} (EADDRINUSE): choose another --port (0: any free one) or --host`,
    );
    expect(listenErrorMessage(new Error('boom'), '127.0.0.1', port)).toBeNull();
  });
});
