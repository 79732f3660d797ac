import { describe, expect, it } from 'vitest';
import { reviewChange } from '../src/review/review.ts';
import { agentic, CONCS, entry, HISTORY, KEY, repo, request, tp4 } from './review-repo.ts';

/**
 * What a recipe lets the engine batch, reviewed at each point that runs it. User thread 003: PR #3111's
 * recipe fixed max_num_seqs=128, which leaves no room for subagent fan-out at c128; the PR that replaced
 * it dropped the flag (vLLM's default, 1024 on a 288 GB MI355X) and derived the CUDA graph ceiling
 * from CONC instead.
 */

const vllm = (rows: object[]) => ({
  ...agentic(rows),
  framework: 'vllm',
  image: 'vllm/vllm-openai-rocm:v0.19.0',
});
const RECIPE = 'benchmarks/single_node/agentic/qwen3.5_fp8_mi355x_vllm_mtp.sh';
const MTP = `--speculative-config '{"method": "mtp", "num_speculative_tokens": 3}'`;
const serve = (...flags: string[]) =>
  [
    '#!/usr/bin/env bash',
    ...flags.filter((f) => f.includes('=') && !f.startsWith('--')),
    'vllm serve "$MODEL" --tensor-parallel-size "$TP" \\',
    ...flags.filter((f) => f.startsWith('--')).map((f) => `  ${f} \\`),
    '  --port 8888',
    '',
  ].join('\n');
const WITH_ENTRY = `${HISTORY}\n${entry('XXX')}`;

async function review(
  files: Record<string, string>,
  base: Record<string, string> = {},
  rows = [tp4],
  config = vllm,
) {
  const { dir, commit } = repo();
  commit({ [KEY]: config([tp4]) }, HISTORY, 'base', base);
  commit({ [KEY]: config(rows) }, WITH_ENTRY, 'head', files);
  const report = await reviewChange(request(dir));
  return report.findings
    .filter((f) => f.rule.startsWith('recipe.'))
    .map(({ severity, rule, file, line, configKey, message }) => ({
      severity,
      rule,
      file,
      line,
      configKey,
      message,
    }));
}

describe('infx review: batching in the recipe', () => {
  it("PR #3111's fixed max-num-seqs 128 leaves no fan-out headroom at c128, at its line", async () => {
    const found = await review({ [RECIPE]: serve('--max-num-seqs 128', MTP) });
    expect(found).toEqual([
      {
        severity: 'warning',
        rule: 'recipe.max-num-seqs',
        file: RECIPE,
        line: 3,
        configKey: KEY,
        message:
          'at conc 128: max-num-seqs 128 caps in-flight sequences below 2 × conc: no headroom for subagent fan-out',
      },
    ]);
  });

  it('a max-num-seqs below the concurrency is blocking: the point would not run at its conc', async () => {
    const found = await review({ [RECIPE]: serve('--max-num-seqs 64', MTP) });
    expect(found.map((f) => [f.severity, f.message.split(':')[0]])).toEqual([
      ['warning', 'at conc 64'],
      ['blocking', 'at conc 128'],
    ]);
  });

  it('a CUDA graph ceiling derived from CONC alone falls below the MTP decode batch at c32 and up', async () => {
    const recipe = serve(
      'CG=$(( 2 * CONC > 128 ? 2 * CONC : 128 ))',
      '--max-cudagraph-capture-size "$CG"',
      MTP,
    );
    const found = await review({ [RECIPE]: recipe });
    expect(found.map((f) => [f.rule, f.line, f.message])).toEqual([
      [
        'recipe.cudagraph-ceiling',
        4,
        'at conc 32, 64: the CUDA graph capture ceiling is 128 tokens, below the decode batch, so the steps above it run without graphs (decode batch 256 (64 sequences × 4 tokens) at conc 32; 512 (128 sequences × 4 tokens) at conc 64)',
      ],
      [
        'recipe.cudagraph-ceiling',
        4,
        'at conc 128: the CUDA graph capture ceiling is 256 tokens, below the decode batch, so the steps above it run without graphs (decode batch 1024 (256 sequences × 4 tokens) at conc 128)',
      ],
    ]);
  });

  it('no flags at all: vLLM default ceiling min(2 × 1024 × 4, 512) is short at c128, at the launch line; tied values are clean', async () => {
    const defaults = await review({ [RECIPE]: serve(MTP) });
    expect(defaults.map((f) => [f.rule, f.line, f.message.split(':')[0]])).toEqual([
      ['recipe.cudagraph-ceiling', 2, 'at conc 128'],
    ]);
    expect(defaults[0]?.message).toContain("512 tokens (the engine's default)");
    const tied = serve(
      'SEQS=$(( 2 * CONC ))',
      '--max-num-seqs "$SEQS"',
      '--max-cudagraph-capture-size $(( SEQS * 4 ))',
      MTP,
    );
    expect(await review({ [RECIPE]: tied })).toEqual([]);
  });

  it('a config change is reviewed against the recipe it runs, changed or not', async () => {
    const recipe = { [RECIPE]: serve('--max-num-seqs 128', MTP) };
    const wider = { ...tp4, 'conc-list': [...CONCS, 256] };
    const found = await review({}, recipe, [wider]);
    expect(found.map((f) => [f.severity, f.message.split(':')[0]])).toEqual([
      ['warning', 'at conc 128'],
      ['blocking', 'at conc 256'],
    ]);
  });

  it('a value the script leaves undecidable gives no finding; graphs turned off for sure is a warning', async () => {
    const undecided = serve(
      'SEQS=16',
      'if command -v rocm-smi >/dev/null; then SEQS=1024; fi',
      '--max-num-seqs "$SEQS"',
      MTP,
    );
    expect(await review({ [RECIPE]: undecided })).toEqual([]);
    const eager = await review({ [RECIPE]: serve('--max-num-seqs 1024', '--enforce-eager', MTP) });
    expect(eager.map((f) => [f.rule, f.line, f.message])).toEqual([
      [
        'recipe.cudagraph-ceiling',
        4,
        `at conc ${CONCS.join(', ')}: CUDA graphs are turned off: every decode step runs eagerly`,
      ],
    ]);
  });

  it('SGLang: max-running-requests and cuda-graph-max-bs count requests; no default is assumed', async () => {
    const path = 'benchmarks/single_node/agentic/qwen3.5_fp8_mi355x_sglang_mtp.sh';
    const launch = (flags: string) =>
      `python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" ${flags}\n`;
    const found = await review(
      { [path]: launch('--max-running-requests 512 --cuda-graph-max-bs=128') },
      {},
      [tp4],
      agentic,
    );
    expect(found.map((f) => [f.rule, f.line, f.message])).toEqual([
      [
        'recipe.cudagraph-ceiling',
        1,
        'at conc 128: the CUDA graph capture ceiling is 128 requests, below the decode batch, so the steps above it run without graphs (decode batch 256 at conc 128)',
      ],
    ]);
    expect(await review({ [path]: launch('') }, {}, [tp4], agentic)).toEqual([]);
  });
});
