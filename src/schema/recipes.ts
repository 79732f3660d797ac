import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which engine recipe (recipes/<engine>.sh) launches each framework of the reference configs, and where the
 * recipes live: shared by the engines that render them and the feasibility check that asks whether a point
 * can be launched at all.
 */
export const RECIPE_BY_FRAMEWORK: Readonly<Record<string, string>> = {
  vllm: 'vllm',
  'dynamo-vllm': 'vllm',
  'llmd-vllm': 'vllm',
  sglang: 'sglang',
  'dynamo-sglang': 'sglang',
  'sglang-disagg': 'sglang',
  trt: 'trt',
  'dynamo-trt': 'trt',
};

/**
 * The package's recipes/ folder: found by walking up from this module, which is src/schema/ under vitest
 * and dist/ (or dist/chunks/) in the bundle. INFX_RECIPES_DIR overrides it.
 */
export function defaultRecipesDir(): string {
  const override = process.env.INFX_RECIPES_DIR;
  if (override) return resolve(override);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'recipes', 'lib.sh'))) return join(dir, 'recipes');
  }
  return resolve('recipes');
}
