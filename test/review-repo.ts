import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { tmpDir } from './helpers.ts';

/**
 * Config PRs rebuilt as git repositories, for `infx review`: an AMD master with one agentic config
 * (user thread 003's shape), its runners, a changelog, and any other files a commit brings.
 */

export const agentic = (rows: object[]) => ({
  image: 'lmsysorg/sglang:v0.5.16-rocm720-mi30x',
  model: 'Qwen/Qwen3.5-397B-A17B-FP8',
  'model-prefix': 'qwen3.5',
  runner: 'cluster:mi355x-amds',
  precision: 'fp8',
  framework: 'sglang',
  multinode: false,
  scenarios: { 'agentic-coding': [{ 'dram-utilization': 0.6, 'search-space': rows }] },
});
export const KEY = 'qwen3.5-fp8-mi355x-sglang-agentic-mtp';
export const CONCS = [1, 2, 4, 8, 16, 32, 64, 128];
export const tp4 = { tp: 4, ep: 1, 'spec-decoding': 'mtp', 'kv-offloading': 'none', 'conc-list': CONCS };
export const tp2 = { ...tp4, tp: 2 };
const RUNNERS = {
  labels: { 'cluster:mi355x-amds': ['mi355x-amds_00'] },
  hardware: { 'cluster:mi355x-amds': { 'available-cpu-dram-mib': 3_095_781, 'gpus-per-node': 8 } },
};
export const entry = (link: string) =>
  `- config-keys:\n    - ${KEY}\n  description:\n    - "Add TP=2"\n  pr-link: ${link}\n`;
export const HISTORY = entry('https://github.com/SemiAnalysisAI/InferenceX/pull/1');

export function repo(): {
  dir: string;
  commit(master: object, changelog: string, tag: string, files?: Record<string, string>): void;
} {
  const dir = tmpDir('infx-review-');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  mkdirSync(join(dir, 'configs'));
  return {
    dir,
    commit(master, changelog, tag, files = {}) {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(dir, path, '..'), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      writeFileSync(join(dir, 'configs/amd-master.yaml'), yaml.dump(master, { flowLevel: 5 }));
      writeFileSync(join(dir, 'configs/runners.yaml'), yaml.dump(RUNNERS));
      writeFileSync(join(dir, 'perf-changelog.yaml'), changelog);
      git('add', '-A');
      git('commit', '-q', '--allow-empty', '-m', tag);
      git('tag', tag);
    },
  };
}

export const request = (dir: string, extra: object = {}) => ({
  cwd: dir,
  baseRef: 'base',
  headRef: 'head',
  changelogFile: 'perf-changelog.yaml',
  configFiles: ['configs/amd-master.yaml'],
  runnerConfig: 'configs/runners.yaml',
  ...extra,
});
