import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InfxError } from '../schema/errors.ts';
import { defaultRecipesDir, RECIPE_BY_FRAMEWORK } from '../schema/recipes.ts';

export { defaultRecipesDir, RECIPE_BY_FRAMEWORK };

/** Which recipe script renders a framework, and where the recipes live. */

/** A row or option the recipes cannot render; the message says what and how to fix it. */
export class RecipeError extends InfxError {
  override name = 'RecipeError';
}

/** Dynamo's workers register with its frontend instead of serving HTTP themselves. */
export const workersServeHttp = (framework: string) => !framework.startsWith('dynamo-');

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
