import { describe, expect, it } from 'vitest';
import { nonUpstreamImage, recipeFindings } from './recipe-rules.ts';

const file = (text: string) => [{ path: 'benchmarks/x.sh', text }];
const rules = (text: string, present = false) =>
  recipeFindings(file(text), { path: 'docs/waiver/42.md', present }).map((f) => [f.rule, f.line]);

describe('recipe rules', () => {
  it('flags each way of patching the engine, by line, unless the PR has its waiver', () => {
    const script = [
      '#!/bin/bash',
      '# git apply is mentioned in a comment only',
      'git apply /patches/fix.diff',
      'patch -p1 < fix.patch',
      "sed -i 's/a/b/' /usr/lib/python3/site-packages/vllm/config.py",
      'pip install /wheels/vllm-0.9.0-cp312-linux_x86_64.whl',
      'pip install git+https://github.com/someone/vllm@branch',
      'vllm serve model --tp 8',
    ].join('\n');
    expect(rules(script)).toEqual([
      ['recipe.engine-patch', 3],
      ['recipe.engine-patch', 4],
      ['recipe.engine-patch', 5],
      ['recipe.engine-patch', 6],
      ['recipe.engine-patch', 7],
    ]);
    expect(rules(script, true)).toEqual([]);
  });

  it('flags --hf-overrides that cut layers or experts, not those that leave the compute alone', () => {
    expect(rules(`vllm serve m --hf-overrides '{"num_hidden_layers": 4}'`)).toEqual([
      ['recipe.hf-overrides-flops', 1],
    ]);
    expect(rules(`vllm serve m --hf-overrides '{"num_experts_per_tok":2}'`)).toEqual([
      ['recipe.hf-overrides-flops', 1],
    ]);
    expect(rules(`vllm serve m --hf-overrides '{"max_position_embeddings": 262144}'`)).toEqual([]);
  });

  it('flags an engine flag the platform rejects: --engram-config in a ROCm recipe, not a CUDA one', () => {
    const flag = `vllm serve m --engram-config '{"cpu_offload":true}'`;
    const at = (path: string) =>
      recipeFindings([{ path, text: `#!/bin/bash\n${flag}\n` }], { path: 'w', present: false }).map((f) => [
        f.rule,
        f.line,
        f.severity,
      ]);
    expect(at('benchmarks/single_node/agentic/dsv41flash_fp4_mi355x_vllm_mtp.sh')).toEqual([
      ['recipe.platform-flag', 2, 'blocking'],
    ]);
    expect(at('benchmarks/single_node/agentic/dsv41flash_fp4_b200_vllm_mtp.sh')).toEqual([]);
  });

  it('knows the engines’ own image repositories, on the established SKUs', () => {
    expect(nonUpstreamImage('vllm', 'vllm/vllm-openai:v0.11.0', 'h200')).toBe(false);
    expect(nonUpstreamImage('vllm', 'vllm/vllm-openai-rocm:nightly', 'cluster:mi355x-amds')).toBe(false);
    expect(nonUpstreamImage('sglang', 'lmsysorg/sglang:v0.5.16-rocm720-mi30x', 'mi325x')).toBe(false);
    expect(nonUpstreamImage('sglang', 'lmsysorg#sglang:v0.5.16', 'b200-nscale')).toBe(false);
    expect(nonUpstreamImage('vllm', 'rocm/vllm-dev:nightly_20260101', 'mi355x')).toBe(true);
    expect(nonUpstreamImage('sglang', 'ghcr.io/me/sglang:dev', 'gb200')).toBe(true);
    expect(nonUpstreamImage('sglang', 'ghcr.io/me/sglang:dev', 'tpu-v6')).toBe(false);
    expect(nonUpstreamImage('dynamo-vllm', 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.0', 'gb200')).toBe(
      false,
    );
  });
});
