import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AcceleratorSpec, ModelSpec } from '../schema/catalog.ts';
import type { CheckFinding } from '../schema/check-finding.ts';
import { defaultRecipesDir, RECIPE_BY_FRAMEWORK } from '../schema/recipes.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import type { CheckPoint, Pool } from './points.ts';

/**
 * What cannot run whatever the memory: a tp the attention heads do not split over, a single-node point
 * with more GPUs than its runner's node, an ep wider than the GPUs it runs on, a max-model-len beyond the
 * model's context, and a framework no recipe launches.
 */

/** A finding before the config key and file are attached. */
export type PointFinding = Omit<CheckFinding, 'configKey' | 'file'>;

/** Frameworks that a built-in engine recipe of recipes/ renders. */
export const FRAMEWORKS_WITH_RECIPES: readonly string[] = Object.keys(RECIPE_BY_FRAMEWORK);

/** Whether a recipe launches the framework: a built-in one, or a user's recipes/<framework>.sh. */
export function hasRecipe(framework: string, dir: string = defaultRecipesDir()): boolean {
  if (FRAMEWORKS_WITH_RECIPES.includes(framework)) return true;
  const safe = /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(framework) && framework !== 'lib';
  return safe && existsSync(join(dir, `${framework}.sh`));
}

export function recipeFinding(framework: string): PointFinding | undefined {
  if (hasRecipe(framework)) return undefined;
  return {
    severity: 'error',
    rule: 'framework.no-recipe',
    point: null,
    topology: null,
    conc: null,
    worker: null,
    hardware: null,
    message: `framework '${framework}' has no engine recipe, so no point of this config can be launched (frameworks with a recipe: ${FRAMEWORKS_WITH_RECIPES.join(', ')})`,
    fix: `add recipes/${framework}.sh (source recipes/lib.sh and end with infx_exec, as recipes/vllm.sh does), or point INFX_RECIPES_DIR at a folder that has one`,
    numbers: {},
  };
}

/**
 * GPUs in one node of a single-node runner: runners.yaml's gpus-per-node for the label when it states one,
 * else the accelerator's: its scale-up domain (8 for HGX and MI300-class boards), or 4 for NVL72-class
 * systems, whose nodes (compute trays) hold 4 GPUs of a 72-GPU domain.
 */
export function gpusPerNode(runner: string, runners: RunnerConfig, acc: AcceleratorSpec): number {
  const stated = runners.hardware[runner]?.['gpus-per-node'];
  if (stated !== undefined) return stated;
  return acc.scaleUp.domainGpus > 8 ? 4 : acc.scaleUp.domainGpus;
}

const poolGpus = (p: Pool) => p.tp * p.pp * p.pcp;

/** Findings of one pool of one point (point, topology and hardware are attached by the caller). */
export function topologyFindings(
  point: CheckPoint,
  pool: Pool,
  m: ModelSpec,
  acc: AcceleratorSpec,
  runners: RunnerConfig,
): Array<Pick<CheckFinding, 'severity' | 'rule' | 'message' | 'fix' | 'numbers'>> {
  const out: Array<Pick<CheckFinding, 'severity' | 'rule' | 'message' | 'fix' | 'numbers'>> = [];
  const heads = m.attention.heads;
  // With data-parallel attention each rank runs whole heads, so only plain tp splits them.
  if (!pool.dpAttn && heads % pool.tp !== 0) {
    const fits = [1, 2, 4, 8, 16, 32, 64].filter((t) => heads % t === 0 && t <= Math.max(8, pool.tp));
    out.push({
      severity: 'error',
      rule: 'topology.tp-heads',
      message: `tp=${pool.tp} does not divide the ${heads} attention heads of ${m.id}: the engine refuses to shard them`,
      fix: `use a tp that divides ${heads} (${fits.join(', ')}), or dp-attn`,
      numbers: { tp: pool.tp, attentionHeads: heads },
    });
  }
  const gpus = poolGpus(pool);
  // A DEP worker (dp-attn) of a multi-node row spans its DP ranks, which the row's counts do not show.
  if (pool.ep > gpus && (pool.role === null || !pool.dpAttn)) {
    out.push({
      severity: 'error',
      rule: 'topology.ep-exceeds-gpus',
      message: `ep=${pool.ep} is wider than the ${gpus} GPU${gpus === 1 ? '' : 's'} (tp × pp × pcp) ${pool.role === null ? 'of the point' : `of each ${pool.role} worker`}: experts cannot be spread over GPUs the engine does not have`,
      fix: `set ep to at most ${gpus} (usually ep = tp, or 1)`,
      numbers: { ep: pool.ep, gpus },
    });
  }
  if (pool.role === null) {
    const node = gpusPerNode(point.runner, runners, acc);
    if (gpus > node) {
      out.push({
        severity: 'error',
        rule: 'topology.exceeds-node',
        message: `the point needs ${gpus} GPUs (tp × pp × pcp) but a node of runner '${point.runner}' has ${node}: a single-node config cannot span nodes`,
        fix: `use at most ${node} GPUs per point, or make it a multinode: true config with prefill/decode workers`,
        numbers: { gpus, gpusPerNode: node },
      });
    }
  }
  if (point.maxModelLen !== null && point.maxModelLen > m.maxContext) {
    out.push({
      severity: 'error',
      rule: 'context.max-model-len',
      message: `max-model-len ${point.maxModelLen} (isl ${point.isl} + osl ${point.osl} + 256) is beyond the ${m.maxContext}-token context of ${m.id}: the engine refuses to start`,
      fix: `keep isl + osl ≤ ${m.maxContext - 256}`,
      numbers: { maxModelLenTokens: point.maxModelLen, modelContextTokens: m.maxContext },
    });
  }
  return out;
}
