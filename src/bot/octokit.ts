import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { BotError } from './errors.ts';

/**
 * The REST clients `infx bot serve` talks through (@octokit/rest): one per installation when it runs as a
 * GitHub App (an installation token minted from the App's JWT, refreshed by @octokit/auth-app before it
 * expires), or one for a token. `baseUrl` is GitHub Enterprise's `/api/v3` or a test's fake.
 */

export type BotAuth = { kind: 'token'; token: string } | { kind: 'app'; appId: number; privateKey: string };

export interface OctokitFactory {
  /** The client for a delivery's installation (ignored with a token). */
  forInstallation(installationId: number | undefined): Octokit;
  /** The client for a repository the App is installed on (result links, which no delivery starts). */
  forRepo(r: { owner: string; repo: string }): Promise<Octokit>;
}

/** A PEM private key, or a clear error (GitHub gives Apps a PKCS#1 "RSA PRIVATE KEY" file). */
export function checkPrivateKey(pem: string, file: string): string {
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(pem))
    throw new BotError(
      `${file} is not a PEM private key`,
      "give the .pem file GitHub generated for the App (Settings → Developer settings → GitHub Apps → your App → 'Generate a private key')",
    );
  return pem;
}

export function octokitFactory(opts: {
  auth: BotAuth;
  baseUrl: string;
  /** One request's limit (default 30 s). */
  timeoutMs?: number;
  userAgent?: string;
}): OctokitFactory {
  const common = {
    baseUrl: opts.baseUrl,
    userAgent: opts.userAgent ?? 'infx-bot',
    // Octokit's default logs every 4xx at warn/error level on the console; the bot reports its own.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  };
  const timed = () => ({
    ...common,
    request: {
      // A hung API must not hold a pull request's queue forever.
      fetch: (url: string | URL, init?: RequestInit) =>
        fetch(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(opts.timeoutMs ?? 30_000) }),
    },
  });
  if (opts.auth.kind === 'token') {
    const client = new Octokit({ ...timed(), auth: opts.auth.token });
    return { forInstallation: () => client, forRepo: async () => client };
  }
  const { appId, privateKey } = opts.auth;
  const clients = new Map<number, Octokit>();
  const app = new Octokit({ ...timed(), authStrategy: createAppAuth, auth: { appId, privateKey } });
  const installations = new Map<string, number>();
  const factory: OctokitFactory = {
    async forRepo(r) {
      const key = `${r.owner}/${r.repo}`.toLowerCase();
      let id = installations.get(key);
      if (id === undefined) {
        try {
          id = (await app.rest.apps.getRepoInstallation(r)).data.id;
        } catch (err) {
          throw new BotError(
            `the App is not installed on ${r.owner}/${r.repo} (${(err as Error).message})`,
            'install the App on the repository that --repo names',
          );
        }
        installations.set(key, id);
      }
      return factory.forInstallation(id);
    },
    forInstallation(installationId) {
      if (installationId === undefined)
        throw new BotError(
          'the delivery names no installation: an App receives deliveries for the repositories it is installed on',
          'install the App on the repository, or run the bot with --token-file',
        );
      let client = clients.get(installationId);
      if (!client) {
        client = new Octokit({
          ...timed(),
          authStrategy: createAppAuth,
          auth: { appId, privateKey, installationId },
        });
        clients.set(installationId, client);
      }
      return client;
    },
  };
  return factory;
}
