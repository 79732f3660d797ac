import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BotConfig } from './bot-context.ts';
import { BotError } from './errors.ts';
import { ForkApprovals } from './fork-approvals.ts';
import { apiBaseUrl } from './github.ts';
import { type BotAuth, checkPrivateKey, octokitFactory } from './octokit.ts';
import { repoOf } from './pr-comments.ts';
import { type ResultLinks, resultLinks } from './result-links.ts';
import { type BotServer, startBotServer } from './webhook-server.ts';

/** `infx bot serve`: its flags read and checked (each refusal names the flag and the fix), then started. */

export interface BotServeRequest {
  port: number;
  host: string;
  path: string;
  webhookSecretFile: string;
  appId?: number | undefined;
  privateKeyFile?: string | undefined;
  tokenFile?: string | undefined;
  githubApiUrl?: string | undefined;
  db?: string | undefined;
  repoDir?: string | undefined;
  remote: string;
  dashboardUrl?: string | undefined;
  repo?: string | undefined;
  pollIntervalS: number;
  announceSince?: string | undefined;
  stateDir: string;
  changelogFile: string;
  configFiles: readonly string[];
  runnerConfig: string;
  checklistPath: string;
  codeownersPath: string;
  infx: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  log: (line: string) => void;
}

function secretFile(file: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new BotError(
      `${flag} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const value = text.trim();
  if (value === '')
    throw new BotError(`${flag} ${file} is empty`, 'write the secret into the file, on one line');
  return value;
}

function auth(r: BotServeRequest): BotAuth {
  const app = r.appId !== undefined || r.privateKeyFile !== undefined;
  if (app && r.tokenFile !== undefined)
    throw new BotError('give --app-id with --private-key-file (a GitHub App), or --token-file, not both');
  if (r.tokenFile !== undefined) return { kind: 'token', token: secretFile(r.tokenFile, '--token-file') };
  if (r.appId === undefined || r.privateKeyFile === undefined)
    throw new BotError(
      app
        ? '--app-id and --private-key-file go together'
        : 'say how the bot authenticates: --app-id N --private-key-file app.pem (a GitHub App), or --token-file FILE',
    );
  return {
    kind: 'app',
    appId: r.appId,
    privateKey: checkPrivateKey(secretFile(r.privateKeyFile, '--private-key-file'), r.privateKeyFile),
  };
}

function repoDir(dir: string | undefined): string | null {
  if (dir === undefined) return null;
  const abs = resolve(dir);
  if (!existsSync(join(abs, '.git')) || !statSync(abs).isDirectory())
    throw new BotError(
      `--repo-dir ${dir} is not a git clone`,
      'give a clone the bot may own (it checks pull request heads out there): git clone https://github.com/OWNER/REPO',
    );
  return abs;
}

function dashboard(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.href.replace(/\/+$/, '');
  } catch {}
  throw new BotError(`--dashboard-url '${url}' is not an http(s) URL: give e.g. https://infx.example.org`);
}

export interface RunningBot {
  server: BotServer;
  results: ResultLinks | null;
  notes: string[];
  close(): Promise<void>;
}

export async function serveBot(r: BotServeRequest): Promise<RunningBot> {
  const secret = secretFile(r.webhookSecretFile, '--webhook-secret-file');
  const octokits = octokitFactory({ auth: auth(r), baseUrl: apiBaseUrl(r.githubApiUrl, r.env) });
  if (r.repo !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(r.repo))
    throw new BotError(`--repo '${r.repo}' is not owner/name: give e.g. --repo SemiAnalysisAI/InferenceX`);
  if (r.announceSince !== undefined && Number.isNaN(Date.parse(r.announceSince)))
    throw new BotError(`--announce-since '${r.announceSince}' is not a date: give e.g. 2026-12-01T00:00:00Z`);
  const config: BotConfig = {
    octokits,
    db: r.db ?? null,
    repoDir: repoDir(r.repoDir),
    infx: r.infx,
    dashboardUrl: dashboard(r.dashboardUrl),
    changelogFile: r.changelogFile,
    configFiles: r.configFiles,
    runnerConfig: r.runnerConfig,
    checklistPath: r.checklistPath,
    codeownersPath: r.codeownersPath,
    remote: r.remote,
    approvals: new ForkApprovals(join(r.stateDir, 'fork-approvals.json')),
    log: r.log,
  };
  const notes: string[] = [];
  if (config.repoDir === null) notes.push('no --repo-dir: changelog checks are off');
  if (config.db === null)
    notes.push(
      'no --db: slash commands answer that there is no results database, and no result links are posted',
    );
  else if (r.repo === undefined)
    notes.push('no --repo: result links are not posted (they need the repository the runs belong to)');
  if (config.dashboardUrl === null) notes.push('no --dashboard-url: comments name runs without links');
  const server = await startBotServer({
    config,
    secret,
    port: r.port,
    host: r.host,
    path: r.path,
    deliveryLog: join(r.stateDir, 'deliveries.log'),
  });
  const results =
    config.db !== null && r.repo !== undefined
      ? resultLinks(config, octokits, repoOf(r.repo), {
          since: new Date(r.announceSince ?? Date.now()).toISOString(),
          intervalMs: r.pollIntervalS * 1000,
        })
      : null;
  return {
    server,
    results,
    notes,
    close: async () => {
      results?.stop();
      await server.close();
    },
  };
}
