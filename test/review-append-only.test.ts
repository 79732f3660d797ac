import { describe, expect, it } from 'vitest';
import { reviewChange } from '../src/review/review.ts';
import { agentic, CONCS, HISTORY, KEY, repo, request, tp4 } from './review-repo.ts';

/**
 * Append-only safety for recipes (addendum §3.2, sign-off check 12): an append-only PR adds c256 to a
 * curve whose c1–c128 results the base already has, so its recipe change must reach c256 only.
 */

const vllm = (rows: object[]) => ({
  ...agentic(rows),
  framework: 'vllm',
  image: 'vllm/vllm-openai-rocm:v0.19.0',
});
const RECIPE = 'benchmarks/single_node/agentic/qwen3.5_fp8_mi355x_vllm_mtp.sh';
const BASE_RECIPE = 'vllm serve "$MODEL" --tensor-parallel-size "$TP" --max-num-seqs 1024\n';
const APPEND = `- config-keys:\n    - ${KEY}\n  description:\n    - "Add c256"\n  pr-link: XXX\n  append-only: true\n`;
const wider = { ...tp4, 'conc-list': [...CONCS, 256] };

async function review(recipe: string, changelog = `${HISTORY}\n${APPEND}`) {
  const { dir, commit } = repo();
  commit({ [KEY]: vllm([tp4]) }, HISTORY, 'base', { [RECIPE]: BASE_RECIPE });
  commit({ [KEY]: vllm([wider]) }, changelog, 'head', { [RECIPE]: recipe });
  const report = await reviewChange(request(dir));
  expect(report.findings.filter((f) => f.rule === 'changelog.gate')).toEqual([]);
  return report.findings
    .filter((f) => f.rule === 'append-only.old-points')
    .map(({ severity, file, line, configKey, message }) => ({ severity, file, line, configKey, message }));
}

const old = CONCS.map((c) => `tp=4 conc=${c}`).join(', ');

describe('infx review: an append-only PR keeps its recipe change off the base points', () => {
  it('an ungated flag change reaches every base point: blocking, naming the flag and the points', async () => {
    const found = await review(BASE_RECIPE.replace('1024', '2048'));
    expect(found).toEqual([
      {
        severity: 'blocking',
        file: RECIPE,
        line: 1,
        configKey: KEY,
        message: `append-only: the recipe change reaches points the base already has (${old}): --max-num-seqs=1024 dropped; --max-num-seqs=2048 added; their kept results no longer describe what the recipe runs`,
      },
    ]);
  });

  it('a change gated to the new points is clean; the same change in a regular PR is not judged here', async () => {
    const gated = [
      'SEQS=1024',
      'if [[ $CONC -gt 128 ]]; then SEQS=2048; fi',
      'vllm serve "$MODEL" --tensor-parallel-size "$TP" --max-num-seqs "$SEQS"',
      '',
    ].join('\n');
    expect(await review(gated)).toEqual([]);
    const regular = `${HISTORY}\n${APPEND.replace('  append-only: true\n', '')}`;
    expect(await review(BASE_RECIPE.replace('1024', '2048'), regular)).toEqual([]);
  });

  it('an exported variable counts; a change the reader cannot decide is a warning', async () => {
    const exported = await review(`export VLLM_ROCM_USE_AITER=1\n${BASE_RECIPE}`);
    expect(exported.map((f) => [f.severity, f.message.split('): ')[1]])).toEqual([
      [
        'blocking',
        'export VLLM_ROCM_USE_AITER: unset → "1"; their kept results no longer describe what the recipe runs',
      ],
    ]);
    const undecided = [
      'SEQS=1024',
      'if command -v rocm-smi >/dev/null; then SEQS=2048; fi',
      'vllm serve "$MODEL" --tensor-parallel-size "$TP" --max-num-seqs "$SEQS"',
      '',
    ].join('\n');
    expect((await review(undecided)).map((f) => [f.severity, f.line])).toEqual([['warning', 1]]);
  });
});
