import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { portArg, positiveInt } from './common.ts';
import { reportError } from './errors.ts';
import { DB_FLAG_HELP } from './ingest.ts';
import type { CliIO } from './io.ts';
import { untilSignal } from './signals.ts';

/** `infx bot serve`: the GitHub App (src/bot/serve.ts) until Ctrl-C or SIGTERM. */

interface BotFlags {
  port: number;
  host: string;
  path: string;
  webhookSecretFile: string;
  appId?: number;
  privateKeyFile?: string;
  tokenFile?: string;
  githubApiUrl?: string;
  db?: string;
  repoDir?: string;
  remote: string;
  dashboardUrl?: string;
  repo?: string;
  pollInterval: number;
  announceSince?: string;
  stateDir: string;
  changelogFile: string;
  configFiles: string[];
  runnerConfig: string;
  checklist: string;
  codeowners: string;
}

/** This infx's own bin/infx.js, which the bot runs for the changelog check. */
function infxBin(): string[] {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const bin = join(dir, 'bin', 'infx.js');
    if (existsSync(bin)) return [process.execPath, bin];
    dir = dirname(dir);
  }
  return [process.execPath, process.argv[1] ?? 'infx'];
}

export function registerBot(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const bot = program
    .command('bot')
    .description('the GitHub App: labels, slash commands, sign-off, review and result links');
  bot
    .command('serve')
    .description(
      "receive GitHub's webhook deliveries (signature checked) and answer on pull requests: the welcome, the sweep-label status, the changelog gate and review as a check run, /stage-results, /reuse-sweep-run and /use, sign-off verification, and result links for stored runs",
    )
    .requiredOption('--webhook-secret-file <file>', "the App's webhook secret, on one line")
    .option('--app-id <n>', "the GitHub App's id (with --private-key-file)", positiveInt)
    .option('--private-key-file <file>', "the App's private key (.pem)")
    .option(
      '--token-file <file>',
      'a token instead of App authentication (a bot account or a fine-grained PAT)',
    )
    .option(
      '--github-api-url <url>',
      'the REST API (GitHub Enterprise: https://HOST/api/v3; default: $GITHUB_API_URL, else https://api.github.com)',
    )
    .option('--port <port>', 'port to listen on (0: any free port)', portArg, 3000)
    .option(
      '--host <address>',
      'address to listen on (GitHub must reach it: put it behind your HTTPS proxy)',
      '127.0.0.1',
    )
    .option('--path <path>', 'where deliveries are POSTed', '/api/github/webhooks')
    .option('--db <url>', `${DB_FLAG_HELP}; for /stage-results, /reuse-sweep-run, /use and result links`)
    .option(
      '--repo-dir <dir>',
      'a clone the bot owns, where it checks PR heads out for the changelog check (without it: no check)',
    )
    .option('--remote <name>', "the clone's remote to fetch PR heads from", 'origin')
    .option('--dashboard-url <url>', 'the dashboard (infx serve) as users reach it, for links in comments')
    .option('--repo <owner/name>', 'the repository whose stored PR runs get result-link comments (with --db)')
    .option(
      '--poll-interval <s>',
      'how often the database is looked at for newly stored PR runs',
      positiveInt,
      60,
    )
    .option('--announce-since <date>', 'post result links for runs stored since this date (default: now)')
    .option('--state-dir <dir>', 'where the bot keeps the delivery ids it has seen', '.infx/bot')
    .option('--changelog-file <path>', 'the changelog', 'perf-changelog.yaml')
    .option('--config-files <files...>', 'master configs the changelog check reads, merged in order', [
      'configs/amd-master.yaml',
      'configs/nvidia-master.yaml',
    ])
    .option('--runner-config <path>', 'the runner config the changelog check reads', 'configs/runners.yaml')
    .option('--checklist <path>', 'the review checklist on the base branch', 'docs/PR_REVIEW_CHECKLIST.md')
    .option('--codeowners <path>', 'CODEOWNERS on the base branch', '.github/CODEOWNERS')
    .action(async (flags: BotFlags) => {
      const { serveBot } = await import('../bot/serve.ts');
      let bot: Awaited<ReturnType<typeof serveBot>>;
      try {
        bot = await serveBot({
          ...flags,
          pollIntervalS: flags.pollInterval,
          checklistPath: flags.checklist,
          codeownersPath: flags.codeowners,
          infx: infxBin(),
          env: process.env,
          log: (line) => io.stderr(`${new Date().toISOString()} ${line}\n`),
        });
      } catch (err) {
        setExit(reportError(err, io));
        return;
      }
      for (const n of bot.notes) io.stderr(`note: ${n}\n`);
      io.stdout(`bot listening at ${bot.server.url}${flags.path}\n`);
      await untilSignal();
      await bot.close();
      io.stderr('bot stopped\n');
    });
}
