import { type Command, Option } from 'commander';
import { defaultActor } from '../store/run-status.ts';
import { prNumber } from './change-flags.ts';
import { reportError, UsageError } from './errors.ts';
import { DB_FLAG_HELP } from './ingest.ts';
import type { CliIO } from './io.ts';
import { LABEL_RULES, type PrCommitFlags, prCommitOptions, prCommits } from './pr-commits.ts';

/**
 * Change control on the store: `infx reuse check|apply`, `infx stage`, `infx unstage` and `infx audit`
 * (src/store/change-control.ts). Exit 0 done (or reusable), 1 refused (or not reusable), 2 bad usage.
 */

interface StoreFlags {
  db?: string;
  format: 'text' | 'json';
}
interface ActorFlags extends StoreFlags {
  actor?: string;
  reason?: string;
}
interface PrFlags extends PrCommitFlags {
  pr?: number;
}

const formatOption = () =>
  new Option('--format <format>', 'output format').choices(['text', 'json']).default('text');

function actorOptions(cmd: Command): Command {
  return cmd
    .option('--actor <login>', 'who asks, for the audit trail (default: $INFX_ACTOR, else your OS user)')
    .option('--reason <text>', 'why, for the audit trail');
}

async function withStore<T>(flags: StoreFlags, fn: (store: import('../store/db.ts').Store) => Promise<T>) {
  const { openStore, defaultDbUrl } = await import('../store/db.ts');
  const store = await openStore(flags.db ?? defaultDbUrl());
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

type SetExit = (code: number) => void;

function runner(io: CliIO, setExit: SetExit) {
  const print = (flags: StoreFlags, report: unknown, text: string) =>
    io.stdout(flags.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : text);
  const act =
    <A extends unknown[]>(fn: (...args: A) => Promise<number>) =>
    async (...args: A) => {
      try {
        setExit(await fn(...args));
      } catch (err) {
        setExit(reportError(err, io));
      }
    };
  return { print, act };
}

export function registerReuse(program: Command, io: CliIO, setExit: SetExit): void {
  const { print, act } = runner(io, setExit);
  const reuse = program
    .command('reuse')
    .description("whether a stored PR run can stand in for the PR's merge sweep (changelog-pr-spec §5.5)");
  prCommitOptions(
    reuse
      .command('check')
      .description(
        "check a stored run (pinned: failed or cancelled runs allowed) or, without RUN, the PR's newest stored run that passes; exit 1 when not reusable",
      )
      .argument('[run]', 'the run id (pinned); omit it to take the newest passing run of the PR'),
  )
    .requiredOption('--pr <number>', 'the pull request', prNumber)
    .option('--db <url>', DB_FLAG_HELP)
    .addOption(formatOption())
    .action(
      act(async (runId: string | undefined, flags: PrFlags & StoreFlags) => {
        const commits = prCommits(flags);
        const [{ checkReuse }, { formatReuseVerdict }] = await Promise.all([
          import('../store/change-control.ts'),
          import('../store/format-status.ts'),
        ]);
        const verdict = await withStore(flags, (store) =>
          checkReuse(store, runId ?? null, { pr: flags.pr!, commits, labels: LABEL_RULES }),
        );
        print(flags, verdict, formatReuseVerdict(verdict));
        return verdict.reusable ? 0 : 1;
      }),
    );
  actorOptions(
    prCommitOptions(
      reuse
        .command('apply')
        .description(
          "make a reusable run the PR's official results (its merge): checked as `reuse check RUN`, status official, audited",
        )
        .argument('<run>', 'the run id'),
    ),
  )
    .requiredOption('--pr <number>', 'the pull request', prNumber)
    .option(
      '--changelog <file>',
      "the merge's changelog metadata (infx changelog matrix output): replaces the run's",
    )
    .option('--db <url>', DB_FLAG_HELP)
    .addOption(formatOption())
    .action(
      act(async (runId: string, flags: PrFlags & ActorFlags & { changelog?: string }) => {
        const commits = prCommits(flags);
        const [{ applyReuse }, { formatStatusChange }, { readChangelogMetadataFile }] = await Promise.all([
          import('../store/change-control.ts'),
          import('../store/format-status.ts'),
          import('../changelog/matrix-file.ts'),
        ]);
        const changelog =
          flags.changelog === undefined ? undefined : readChangelogMetadataFile(flags.changelog);
        const { change } = await withStore(flags, (store) =>
          applyReuse(store, runId, {
            pr: flags.pr!,
            commits,
            labels: LABEL_RULES,
            changelog,
            actor: flags.actor ?? defaultActor(),
            reason: flags.reason,
          }),
        );
        print(flags, change, formatStatusChange(change));
        return 0;
      }),
    );
}

export function registerStage(program: Command, io: CliIO, setExit: SetExit): void {
  const { print, act } = runner(io, setExit);
  actorOptions(
    prCommitOptions(
      program
        .command('stage')
        .description(
          'put an unofficial run on the staging view (again: restaged); with --pr, checked as a PR run too (changelog-pr-spec §6)',
        )
        .argument('<run>', 'the run id'),
    ),
  )
    .option(
      '--pr <number>',
      'the pull request: the run must be its run-sweep run, on one of its commits, under a full-sweep label',
      prNumber,
    )
    .option('--db <url>', DB_FLAG_HELP)
    .addOption(formatOption())
    .action(
      act(async (runId: string, flags: PrFlags & ActorFlags) => {
        const pr =
          flags.pr === undefined ? null : { pr: flags.pr, commits: prCommits(flags), labels: LABEL_RULES };
        if (pr === null && (flags.commits ?? flags.baseRef ?? flags.headRef) !== undefined)
          throw new UsageError('--commits, --base-ref and --head-ref go with --pr');
        const [{ stageRun }, { formatStatusChange }] = await Promise.all([
          import('../store/change-control.ts'),
          import('../store/format-status.ts'),
        ]);
        const change = await withStore(flags, (store) =>
          stageRun(store, runId, { pr, actor: flags.actor ?? defaultActor(), reason: flags.reason }),
        );
        print(flags, change, formatStatusChange(change));
        return 0;
      }),
    );
}

export function registerUnstage(program: Command, io: CliIO, setExit: SetExit): void {
  const { print, act } = runner(io, setExit);
  actorOptions(
    program.command('unstage').description('take a staged run off the staging view (unofficial again)'),
  )
    .argument('<run>', 'the run id')
    .option('--db <url>', DB_FLAG_HELP)
    .addOption(formatOption())
    .action(
      act(async (runId: string, flags: ActorFlags) => {
        const [{ unstageRun }, { formatStatusChange }] = await Promise.all([
          import('../store/change-control.ts'),
          import('../store/format-status.ts'),
        ]);
        const change = await withStore(flags, (store) =>
          unstageRun(store, runId, { actor: flags.actor ?? defaultActor(), reason: flags.reason }),
        );
        print(flags, change, formatStatusChange(change));
        return 0;
      }),
    );
}

export function registerAudit(program: Command, io: CliIO, setExit: SetExit): void {
  const { print, act } = runner(io, setExit);
  program
    .command('audit')
    .description(
      "a stored run's status, provenance, changelog entries and every status change (who, when, why)",
    )
    .argument('<run>', 'the run id')
    .option('--db <url>', DB_FLAG_HELP)
    .addOption(formatOption())
    .action(
      act(async (runId: string, flags: StoreFlags) => {
        const [{ runAudit }, { formatAudit }] = await Promise.all([
          import('../store/change-control.ts'),
          import('../store/format-status.ts'),
        ]);
        const audit = await withStore(flags, (store) => runAudit(store, runId));
        print(flags, audit, formatAudit(audit));
        return 0;
      }),
    );
}
