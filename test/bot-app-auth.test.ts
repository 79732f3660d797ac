import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, prEvent } from './support/bot-deliveries.ts';
import { type BotProcess, botFiles, startBot } from './support/bot-process.ts';
import { type FakeGitHubApp, type FakePull, REPO, startFakeGitHubApp } from './support/fake-github-app.ts';

/**
 * `infx bot serve` as a GitHub App: a JWT signed with the App's private key (an RSA key made here) buys an
 * installation token from the fake, which checks the signature with the public key; the bot then acts
 * with that token. A key that is not the App's is refused by the fake, and the delivery fails, reported.
 */

const pair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
const app = pair();
const pull: FakePull = {
  number: 3,
  state: 'open',
  draft: false,
  user: 'dev',
  headSha: 'abc'.padEnd(40, '0'),
  headRef: 'x',
  headRepo: REPO,
  baseSha: 'def'.padEnd(40, '0'),
  baseRef: 'main',
  labels: [],
  commits: [],
  files: [],
};

let gh: FakeGitHubApp;
const bots: BotProcess[] = [];

async function appBot(privateKey: string): Promise<BotProcess> {
  const f = botFiles();
  writeFileSync(join(f.dir, 'app.pem'), privateKey);
  const bot = await startBot([
    ...['--webhook-secret-file', f.secret, '--app-id', '12345', '--private-key-file', join(f.dir, 'app.pem')],
    ...['--github-api-url', gh.url, '--state-dir', join(f.dir, 'state')],
  ]);
  bots.push(bot);
  return bot;
}

beforeAll(async () => {
  gh = await startFakeGitHubApp({ publicKey: app.publicKey });
  gh.pulls.set(3, pull);
});
afterAll(async () => {
  for (const b of bots) await b.stop();
  await gh?.close();
});

describe('infx bot serve --app-id --private-key-file', () => {
  it("mints an installation token for the delivery's installation and acts with it", async () => {
    const bot = await appBot(app.privateKey);
    expect((await post(bot.hook, await prEvent('opened', pull))).status).toBe(202);
    expect((await bot.settle()).failed).toBe(0);
    const mint = gh.calls.find((c) => c.path === '/app/installations/42/access_tokens');
    expect(mint?.auth).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/i);
    const writes = gh.calls.filter((c) => c.method === 'POST' && c.path.startsWith('/repos/'));
    expect(writes.length).toBeGreaterThanOrEqual(2);
    for (const w of writes) expect(w.auth).toBe('token ghs_installation_token');
  });

  it('reports the failure when GitHub refuses the JWT, and lets the delivery be redelivered', async () => {
    const bot = await appBot(pair().privateKey);
    const d = await prEvent('reopened', pull);
    expect((await post(bot.hook, d)).status).toBe(202);
    const h = await bot.settle();
    expect(h.failed).toBe(1);
    expect(h.errors[0]?.message).toMatch(/JSON web token|401/);
    // A failed delivery is not remembered: GitHub's "Redeliver" is handled again.
    expect((await post(bot.hook, d)).status).toBe(202);
  });

  it('refuses a private key file that is not a PEM key', async () => {
    await expect(appBot('not a key')).rejects.toThrow(/is not a PEM private key/);
  });
});
