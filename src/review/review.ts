import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addedEntries } from '../changelog/diff-additions.ts';
import { type ChangelogMatrixRequest, changelogMatrix } from '../changelog/gate.ts';
import { diffOfFile, fileAtRevision } from '../changelog/git.ts';
import { checkConfigs } from '../check/run.ts';
import type { MasterConfigs } from '../config/load.ts';
import { SourceMap } from '../config/yaml-source.ts';
import { MatrixError } from '../matrix/errors.ts';
import { testConfig } from '../matrix/generate.ts';
import { InfxError } from '../schema/errors.ts';
import { isSingleNode, type MatrixRow, type SingleNodeRow } from '../schema/matrix-row.ts';
import type { ReviewFinding, ReviewReport } from '../schema/review.ts';
import { type OldPoints, oldPointFindings } from './append-only-reach.ts';
import { byteGateFindings } from './byte-gate-findings.ts';
import { type Change, readChange } from './changes.ts';
import { deprecatedModels } from './deprecated.ts';
import { evalGroupingCollisions } from './eval-grouping.ts';
import { prBodyFindings } from './pr-body.ts';
import { batchingFindings, type RecipeRows, recipePaths } from './recipe-batching.ts';
import { nonUpstreamImage, type RecipeFile, recipeFindings } from './recipe-rules.ts';

/**
 * `infx review`: a config PR reviewed by rules, not by a model: the same input gives the same findings,
 * each with its severity, file:line and the fix. Rules: a config or recipe changed without a changelog
 * entry; the changelog gate and its byte contract; eval-grouping collisions; engine patches without a
 * waiver and compute-reducing --hf-overrides in the changed recipes; non-upstream engine images;
 * deprecated models; in an append-only PR, a recipe change that reaches the points the base already has;
 * what the recipes let the engine batch (max-num-seqs, CUDA graph capture ceiling) at
 * every point that runs a changed recipe or a changed config; every finding of `infx check` on the
 * changed configs (memory, topology, image pinning); with the PR body, its required sections.
 */

export interface ReviewRequest extends Omit<ChangelogMatrixRequest, 'trimConc' | 'allEvals' | 'evalsOnly'> {
  prBody?: string | null | undefined;
  pr?: number | null | undefined;
  /** The repository the changelog's links name (default SemiAnalysisAI/InferenceX). */
  repo?: string | undefined;
  /** Archived master configs (default configs/deprecated). */
  deprecatedDir?: string | undefined;
}

const RECIPE = /(^|\/)(benchmarks|recipes)\//;

function finding(
  f: Partial<ReviewFinding> & Pick<ReviewFinding, 'severity' | 'rule' | 'message'>,
): ReviewFinding {
  return { file: null, line: null, configKey: null, fix: null, ...f };
}

function where(change: Change, cwd: string, key: string): { file: string | null; line: number | null } {
  const entry = change.configs.byKey.get(key);
  if (entry === undefined) return { file: null, line: null };
  const text = change.configs.texts?.get(entry.file);
  const rel = change.configFiles.find((f) => join(cwd, f) === entry.file) ?? entry.file;
  return {
    file: rel,
    line: text === undefined ? null : (new SourceMap(text).locate([key], { key: true })?.line ?? null),
  };
}

async function changelogFindings(req: ReviewRequest, change: Change): Promise<ReviewFinding[]> {
  const touched = change.files.includes(req.changelogFile);
  const inputs = change.files.filter((f) => change.configFiles.includes(f) || RECIPE.test(f));
  if (!touched) {
    if (inputs.length === 0) return [];
    const first = change.changedKeys[0];
    const at = first === undefined ? { file: inputs[0] ?? null, line: null } : where(change, req.cwd, first);
    return [
      finding({
        severity: 'blocking',
        rule: 'changelog.missing',
        ...at,
        message: `${inputs.join(', ')} changed without a ${req.changelogFile} entry: nothing would run the changed points`,
        fix: `append an entry naming the changed config keys (${change.changedKeys.join(', ') || 'the configs the recipe serves'}) at the end of ${req.changelogFile}, one empty line before it`,
      }),
    ];
  }
  const out: ReviewFinding[] = [];
  try {
    await changelogMatrix(req);
  } catch (err) {
    if (!(err instanceof InfxError)) throw err;
    out.push(
      finding({
        severity: 'blocking',
        rule: 'changelog.gate',
        file: req.changelogFile,
        message: `the changelog processor rejects the change: ${err.message}`,
        fix: 'fix the entry as the message says; `infx changelog validate` reruns the gate locally',
      }),
    );
  }
  out.push(...byteGateFindings(req));
  return out;
}

async function checkFindings(req: ReviewRequest, change: Change): Promise<ReviewFinding[]> {
  if (change.changedKeys.length === 0) return [];
  const report = await checkConfigs({
    configFiles: change.configFiles.map((f) => join(req.cwd, f)),
    runnerConfig: join(req.cwd, change.runnerConfig),
    configKeys: change.changedKeys,
  });
  return report.findings
    .filter((f) => f.severity !== 'note')
    .map((f) =>
      finding({
        severity: f.severity === 'error' ? 'blocking' : 'warning',
        rule: `check.${f.rule}`,
        ...where(change, req.cwd, f.configKey),
        configKey: f.configKey,
        message: f.point === null ? f.message : `${f.point}: ${f.message}`,
        fix: f.fix,
      }),
    );
}

function recipeAndImageFindings(req: ReviewRequest, change: Change): ReviewFinding[] {
  const recipes: RecipeFile[] = [];
  for (const path of change.files.filter((f) => RECIPE.test(f))) {
    const bytes = fileAtRevision(req.cwd, change.head, `./${path}`);
    if (bytes !== null) recipes.push({ path, text: bytes.toString('utf8') });
  }
  const waiverPath = `docs/waiver/${req.pr ?? '<PR>'}.md`;
  const present =
    req.pr != null
      ? fileAtRevision(req.cwd, change.head, `./${waiverPath}`) !== null
      : change.files.some((f) => /^docs\/waiver\/[^/]+\.md$/.test(f));
  const out = recipeFindings(recipes, { path: waiverPath, present });
  const archived = deprecatedModels(join(req.cwd, req.deprecatedDir ?? 'configs/deprecated'));
  const active = (model: string, but: string) =>
    change.configs.entries.some((c) => c.key !== but && (c.entry as { model?: unknown }).model === model);
  for (const key of change.changedKeys) {
    const model = (change.configs.byKey.get(key)?.entry as { model?: unknown } | undefined)?.model;
    const file = typeof model === 'string' ? archived.get(model) : undefined;
    if (typeof model === 'string' && file !== undefined && !active(model, key))
      out.push(
        finding({
          severity: 'warning',
          rule: 'model.deprecated',
          ...where(change, req.cwd, key),
          configKey: key,
          message: `${model} is a deprecated model (archived in configs/deprecated/${file}) and no other active config runs it`,
          fix: 'benchmark a current model, or say in the PR why this one comes back',
        }),
      );
  }
  for (const key of change.changedKeys) {
    const e = change.configs.byKey.get(key)?.entry as
      | { image?: unknown; framework?: unknown; runner?: unknown }
      | undefined;
    if (typeof e?.image !== 'string' || typeof e.framework !== 'string' || typeof e.runner !== 'string')
      continue;
    if (nonUpstreamImage(e.framework, e.image, e.runner))
      out.push(
        finding({
          severity: 'warning',
          rule: 'image.non-upstream',
          ...where(change, req.cwd, key),
          configKey: key,
          message: `${e.framework} runs ${e.image}, not an image of the engine's own repositories: results measure that build, not the release`,
          fix: 'use the upstream image (vllm/vllm-openai[-rocm] or lmsysorg/sglang[-rocm]), or document the exception in the PR',
        }),
      );
  }
  return out;
}

/** A recipe's text at a revision, read once. */
function recipeTexts(req: ReviewRequest, rev: string): (path: string) => string | null {
  const texts = new Map<string, string | null>();
  return (path) => {
    if (!texts.has(path))
      texts.set(path, fileAtRevision(req.cwd, rev, `./${path}`)?.toString('utf8') ?? null);
    return texts.get(path) ?? null;
  };
}

/**
 * The single-node rows of `configs` that may run one of `recipes` (or all rows of `keys`): entries whose
 * model prefix and precision start a changed recipe's name, expanded as the matrix does.
 */
function* singleNodeRows(
  configs: MasterConfigs,
  change: Change,
  recipes: ReadonlySet<string>,
  keys: readonly string[] = [],
): Generator<{ configKey: string; row: SingleNodeRow; mine: boolean }> {
  for (const ce of configs.entries) {
    const e = ce.entry as { 'model-prefix'?: unknown; precision?: unknown };
    const stem = `${String(e['model-prefix'])}_${String(e.precision)}_`;
    const mine = keys.includes(ce.key);
    if (!mine && ![...recipes].some((f) => f.split('/').at(-1)?.startsWith(stem))) continue;
    let rows: MatrixRow[];
    try {
      rows = testConfig(configs, change.runners, { configKeys: [ce.key] });
    } catch (err) {
      if (err instanceof MatrixError) continue; // check reports it
      throw err;
    }
    for (const row of rows) if (isSingleNode(row)) yield { configKey: ce.key, row, mine };
  }
}

/**
 * The recipes to read batching off: every changed one, and the one of each changed config, each with
 * all the single-node rows (of any config) that run it.
 */
function recipeRows(req: ReviewRequest, change: Change): RecipeRows[] {
  const changed = new Set(change.files.filter((f) => RECIPE.test(f)));
  const text = recipeTexts(req, change.head);
  const byPath = new Map<string, RecipeRows['rows'][number][]>();
  for (const { configKey, row, mine } of singleNodeRows(
    change.configs,
    change,
    changed,
    change.changedKeys,
  )) {
    // The launcher runs the first of its candidates that exists.
    const path = recipePaths(row).find((p) => text(p) !== null);
    if (path === undefined || (!mine && !changed.has(path))) continue;
    byPath.set(path, [...(byPath.get(path) ?? []), { configKey, row }]);
  }
  return [...byPath].map(([path, rows]) => ({ path, text: text(path) as string, rows }));
}

/** In an append-only PR: the base's points whose recipe the change touches, with both versions of it. */
function oldPoints(req: ReviewRequest, change: Change): OldPoints[] {
  const changed = new Set(change.files.filter((f) => RECIPE.test(f)));
  if (change.baseConfigs === null || changed.size === 0) return [];
  let appendOnly = false;
  try {
    const diff = diffOfFile(req.cwd, change.base, change.head, `./${req.changelogFile}`);
    appendOnly = addedEntries(diff, req.changelogFile).some((e) => e['append-only']);
  } catch (err) {
    if (!(err instanceof InfxError)) throw err; // the gate reports it
  }
  if (!appendOnly) return [];
  const atBase = recipeTexts(req, change.base);
  const atHead = recipeTexts(req, change.head);
  const byPath = new Map<string, OldPoints>();
  for (const { configKey, row } of singleNodeRows(change.baseConfigs, change, changed)) {
    const basePath = recipePaths(row).find((p) => atBase(p) !== null);
    if (basePath === undefined) continue;
    const headPath = recipePaths(row).find((p) => atHead(p) !== null) ?? null;
    if (headPath === basePath && !changed.has(basePath)) continue;
    const id = `${basePath}\u0000${headPath}`;
    const group = byPath.get(id) ?? {
      basePath,
      headPath,
      baseText: atBase(basePath) as string,
      headText: headPath === null ? null : atHead(headPath),
      rows: [],
    };
    byPath.set(id, { ...group, rows: [...group.rows, { configKey, row }] });
  }
  return [...byPath.values()];
}

export async function reviewChange(req: ReviewRequest): Promise<ReviewReport> {
  const change = await readChange(req);
  const findings: ReviewFinding[] = [...(await changelogFindings(req, change))];
  for (const c of evalGroupingCollisions(change.configs, change.runners, change.changedKeys))
    findings.push(
      finding({
        severity: 'blocking',
        rule: 'evals.grouping-collision',
        ...where(change, req.cwd, c.configKey),
        configKey: c.configKey,
        message:
          `${c.scenario}: the topology ${c.loser} shares the reference's eval group with ${c.winner}, so it gets no ` +
          'eval (run-eval false on every point) and an evals-only run drops all of its points',
        fix: 'give the topology its own config key (or model-prefix), or run infx with --eval-grouping topology and get the reference policy changed',
      }),
    );
  findings.push(...recipeAndImageFindings(req, change));
  findings.push(...batchingFindings(recipeRows(req, change)));
  findings.push(...oldPointFindings(oldPoints(req, change)));
  findings.push(...(await checkFindings(req, change)));
  if (req.prBody != null) findings.push(...prBodyFindings(readFileSync(req.prBody, 'utf8'), req.prBody));
  const blocking = findings.filter((f) => f.severity === 'blocking').length;
  return {
    schemaVersion: 1,
    baseRef: req.baseRef,
    headRef: req.headRef,
    changedFiles: change.files,
    changedConfigs: change.changedKeys,
    blocking,
    warnings: findings.length - blocking,
    findings,
  };
}
