import { createServer } from 'node:net';

/**
 * Free TCP ports for engines. The kernel picks a free one (bind to port 0); ports this process handed out
 * are remembered so two engines started side by side never get the same one even before they bind it.
 */

const handedOut = new Set<number>();

function probe(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function allocatePort(host = '127.0.0.1'): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await probe(host);
    if (port > 0 && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free TCP port on ${host} after 50 tries`);
}

/** Lets a port be handed out again once its engine has stopped. */
export function releasePort(port: number | null): void {
  if (port !== null) handedOut.delete(port);
}
