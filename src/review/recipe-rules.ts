import type { ReviewFinding } from '../schema/review.ts';

/**
 * Rules on the recipe files a change touches (engine launch scripts and their YAML): an engine patched at
 * run time must come with a waiver, and model overrides that shrink the model's compute make a number
 * that is not the model's. Each hit names the line.
 */

/** Ways a recipe changes the engine it runs instead of running it as released. */
const PATCHES: readonly [RegExp, string][] = [
  [/\bgit\s+apply\b/, 'applies a patch with git apply'],
  [/(^|[\s;&|(])patch\s+(-p\d|--strip|<|-i\b)/, 'applies a patch with patch'],
  [
    /site-packages\/\S*\.(py|so)\b.*(>|sed\s+-i|cp\s|mv\s|tee\s)|(sed\s+-i|cp\s|mv\s|tee\s).*site-packages\//,
    'edits installed packages under site-packages',
  ],
  [
    /\bpip3?\s+install\b[^\n]*\b(vllm|sglang|tensorrt[-_]llm|flashinfer)[^\s]*\.whl\b/,
    'installs an engine wheel over the image',
  ],
  [
    /\bpip3?\s+install\b[^\n]*git\+https?:\/\/[^\s]*(vllm|sglang)/,
    'installs the engine from a git branch over the image',
  ],
];

/** hf-overrides keys that remove layers, experts or heads: the model served is then a smaller one. */
const FLOP_KEYS = [
  'num_hidden_layers',
  'num_layers',
  'n_layer',
  'num_experts_per_tok',
  'num_experts',
  'n_routed_experts',
  'num_attention_heads',
  'num_key_value_heads',
  'intermediate_size',
  'moe_intermediate_size',
  'first_k_dense_replace',
  'topk_group',
];

/**
 * Engine flags a platform's build of the engine rejects at start: the recipe fails before any point runs.
 * A recipe is for ROCm when its path names an AMD Instinct SKU or ROCm.
 */
const PLATFORM_FLAGS: readonly { flag: RegExp; name: string; platform: 'rocm'; why: string }[] = [
  {
    flag: /--engram-config\b/,
    name: '--engram-config',
    platform: 'rocm',
    why:
      "vLLM on ROCm rejects it (the reference's docs/configuration-procedures.md:522, user thread 003), so the " +
      'engine does not start and the Engram tables cannot be moved to host memory this way',
  },
];
const ROCM_RECIPE = /(^|[^a-z0-9])(mi300x|mi325x|mi355x|mi350x|rocm)([^a-z0-9]|$)/i;

export interface RecipeFile {
  path: string;
  text: string;
}

export function recipeFindings(
  files: readonly RecipeFile[],
  waiver: { path: string; present: boolean },
): ReviewFinding[] {
  const out: ReviewFinding[] = [];
  for (const f of files) {
    f.text.split('\n').forEach((line, i) => {
      if (/^\s*#/.test(line)) return;
      for (const [re, what] of PATCHES)
        if (re.test(line) && !waiver.present)
          out.push({
            severity: 'blocking',
            rule: 'recipe.engine-patch',
            file: f.path,
            line: i + 1,
            configKey: null,
            message: `the recipe ${what}, without a waiver (${waiver.path}): the result is not the released engine's`,
            fix: `use an image that ships the fix, or add ${waiver.path} saying what the patch changes, why, and when it goes`,
          });
      if (ROCM_RECIPE.test(f.path))
        for (const p of PLATFORM_FLAGS)
          if (p.flag.test(line))
            out.push({
              severity: 'blocking',
              rule: 'recipe.platform-flag',
              file: f.path,
              line: i + 1,
              configKey: null,
              message: `the ROCm recipe passes ${p.name}: ${p.why}`,
              fix: `drop ${p.name} from the ROCm recipe and size the point for what the engine does without it (infx check)`,
            });
      if (/--hf[-_]overrides\b/.test(line)) {
        const keys = FLOP_KEYS.filter((k) => new RegExp(`["']?${k}["']?\\s*[:=]`).test(line));
        if (keys.length > 0)
          out.push({
            severity: 'blocking',
            rule: 'recipe.hf-overrides-flops',
            file: f.path,
            line: i + 1,
            configKey: null,
            message: `--hf-overrides sets ${keys.join(', ')}: the engine serves a model with less compute than the one named, so its throughput is not that model's`,
            fix: 'drop those overrides (overrides that do not change the compute, such as rope scaling or max position, are fine)',
          });
      }
    });
  }
  return out;
}

/** The engines' own image repositories (changelog-pr-spec §7 check 6; `#` is read as `/`). */
const UPSTREAM: Readonly<Record<string, RegExp>> = {
  vllm: /^(docker\.io\/)?vllm\/vllm-openai(-rocm)?(:|@|$)/,
  sglang: /^(docker\.io\/)?lmsysorg\/sglang(-rocm)?(:|@|$)/,
};
/** The established SKUs the rule holds on. */
const ESTABLISHED = /(^|[^a-z0-9])(h100|h200|b200|b300|gb200|gb300|mi300x|mi325x|mi355x)([^a-z0-9]|$)/;

/** A vLLM or SGLang config on an established SKU whose image is not from the engine's own repositories. */
export function nonUpstreamImage(framework: string, image: string, runner: string): boolean {
  const repo = UPSTREAM[framework];
  if (repo === undefined || !ESTABLISHED.test(runner.toLowerCase())) return false;
  return !repo.test(image.replaceAll('#', '/'));
}
