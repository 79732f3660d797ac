import { compareToFrontier, frontierBaseline } from '../analysis/compare-frontier.ts';
import { formatFrontierMarkdown } from '../analysis/compare-frontier-format.ts';
import { loadStoredFrontierSide } from '../analysis/frontier-sources.ts';
import type { StoredRun } from '../schema/store.ts';
import { openStore } from '../store/db.ts';
import { prRunsIngestedSince } from '../store/queries.ts';
import { type BotConfig, link } from './bot-context.ts';
import type { OctokitFactory } from './octokit.ts';
import { type Repo, upsertComment } from './pr-comments.ts';

/**
 * Result links: each run of a pull request stored in the results database gets one comment on that PR
 * with its dashboard links (performance, accuracy, the run) and its comparison with the published
 * frontier (the official results of the same model, precision, hardware and workload). The bot looks for
 * newly ingested runs every interval; a run ingested again (more points stored) has its comment edited.
 */

export const resultsMarker = (runId: string) => `<!-- infx-results run=${runId} -->`;

function engineWords(run: StoredRun): string {
  const { simulated, real } = run.engine;
  if (simulated > 0 && real === 0)
    return " — **simulated** (infx's simulated engine, not measured on hardware)";
  if (simulated > 0) return ` — **${simulated} of ${simulated + real} results simulated**`;
  return '';
}

export async function resultsComment(cfg: BotConfig, run: StoredRun): Promise<string> {
  const id = encodeURIComponent(run.runId);
  const links = [
    ['Performance', link(cfg, `/?run=${id}`)],
    ['Accuracy', link(cfg, `/evaluation?run=${id}`)],
    ['Run', link(cfg, `/runs/${id}`)],
  ].filter((l): l is [string, string] => l[1] !== null);
  let table: string;
  try {
    const db = { db: cfg.db as string };
    const curves = await loadStoredFrontierSide(run.runId, db);
    const official = frontierBaseline(curves, await loadStoredFrontierSide('official', db));
    table =
      official.points.length + official.agentic.length === 0
        ? '_No published (official) results of these configs yet: nothing to compare with._'
        : formatFrontierMarkdown(compareToFrontier(curves, official, { stat: 'median' }));
  } catch (err) {
    // The reason stays in the bot's log: it can name the database server.
    cfg.log(`run ${run.runId}: the frontier comparison failed: ${(err as Error).message}`);
    table = "_The comparison with the published frontier could not be made (the bot's log says why)._";
  }
  return [
    resultsMarker(run.runId),
    `## Results of run \`${run.runId}\`${engineWords(run)}`,
    '',
    `${run.ingested} of ${run.planned} points stored${run.failed > 0 ? `, ${run.failed} failed` : ''}${run.missing > 0 ? `, ${run.missing} missing` : ''}${run.sweepActive ? ' (the sweep was still running when it was stored)' : ''}.`,
    '',
    links.length > 0
      ? links.map(([k, v]) => `- ${k}: ${v}`).join('\n')
      : `_No dashboard URL (\`--dashboard-url\`): run \`infx serve\` and open the run ${run.runId}._`,
    '',
    table,
  ].join('\n');
}

export interface ResultLinks {
  /** One look at the database; resolves when every new run is announced. */
  poll(): Promise<void>;
  stop(): void;
}

export function resultLinks(
  cfg: BotConfig,
  octokits: OctokitFactory,
  repo: Repo,
  opts: { since: string; intervalMs: number },
): ResultLinks {
  let since = opts.since;
  const announced = new Map<string, string>();
  let busy: Promise<void> | null = null;
  const once = async () => {
    const store = await openStore(cfg.db as string);
    let runs: StoredRun[];
    try {
      runs = await prRunsIngestedSince(store, since);
    } finally {
      await store.close();
    }
    const gh = await octokits.forRepo(repo);
    for (const run of runs) {
      if (announced.get(run.runId) === run.ingestedAt || run.provenance?.prNumber == null) continue;
      const pr = run.provenance.prNumber;
      await upsertComment(gh, repo, pr, resultsMarker(run.runId), await resultsComment(cfg, run));
      announced.set(run.runId, run.ingestedAt);
      cfg.log(`#${pr}: result links for run ${run.runId} posted`);
      if (run.ingestedAt > since) since = run.ingestedAt;
    }
  };
  const poll = () => {
    busy ??= once()
      .catch((err) => cfg.log(`result links: ${(err as Error).message}`))
      .finally(() => {
        busy = null;
      });
    return busy;
  };
  const timer = setInterval(poll, opts.intervalMs);
  timer.unref();
  return { poll, stop: () => clearInterval(timer) };
}
