import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Which recipe script renders a framework, and where the recipes live. */

/** A row or option the recipes cannot render; the message says what and how to fix it. */
export class RecipeError extends Error {
  override name = 'RecipeError';
}

/** Frameworks of the reference configs that one engine's recipe renders. */
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

/** Dynamo's workers register with its frontend instead of serving HTTP themselves. */
export const workersServeHttp = (framework: string) => !framework.startsWith('dynamo-');

/**
 * The package's recipes/ folder: found by walking up from this module, which is src/engines/ under
 * vitest and dist/ (or dist/chunks/) in the bundle. INFX_RECIPES_DIR overrides it.
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

export interface ResolvedRecipe {
  /** recipes/<name>.sh, as shown to users. */
  name: string;
  path: string;
}

/**
 * `recipes/<framework>.sh` when the recipes folder has one (a user's own recipe wins), else the engine
 * recipe the framework maps to; anything else is an error naming the file to add.
 */
export function resolveRecipe(framework: string, recipesDir: string): ResolvedRecipe {
  if (!existsSync(join(recipesDir, 'lib.sh')))
    throw new RecipeError(
      `no recipes in ${recipesDir} (recipes/lib.sh is missing): point --recipes-dir or INFX_RECIPES_DIR at the recipes folder`,
    );
  const safe = /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(framework) && framework !== 'lib';
  if (safe && existsSync(join(recipesDir, `${framework}.sh`)))
    return { name: `recipes/${framework}.sh`, path: join(recipesDir, `${framework}.sh`) };
  const engine = Object.hasOwn(RECIPE_BY_FRAMEWORK, framework) ? RECIPE_BY_FRAMEWORK[framework] : undefined;
  if (engine === undefined)
    throw new RecipeError(
      `framework '${framework}' has no engine recipe: add recipes/${safe ? framework : '<framework>'}.sh ` +
        `(source recipes/lib.sh and end with infx_exec, as recipes/vllm.sh does); frameworks with a recipe: ` +
        `${Object.keys(RECIPE_BY_FRAMEWORK).join(', ')}`,
    );
  const path = join(recipesDir, `${engine}.sh`);
  if (!existsSync(path))
    throw new RecipeError(
      `framework '${framework}' needs ${path}, which does not exist: restore recipes/${engine}.sh`,
    );
  return { name: `recipes/${engine}.sh`, path };
}
