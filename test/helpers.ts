import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { afterAll } from 'vitest';
import type { CliIO } from '../src/cli/io.ts';
import { run } from '../src/cli/main.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The reference project's fixtures live beside the repository (../shared) and are never copied into it.
 * Tests that need them skip, saying so, where they are absent (a user's fresh clone).
 */
export const FIXTURES = process.env.INFX_FIXTURES ?? resolve(REPO_ROOT, '../shared/fixtures/inferencex');
export const fixturesAvailable = existsSync(join(FIXTURES, 'configs/nvidia-master.yaml'));
export const FIXTURES_SKIP_REASON = `reference fixtures not found at ${FIXTURES} (set INFX_FIXTURES to run these tests)`;
if (!fixturesAvailable) console.warn(`skipping fixture tests: ${FIXTURES_SKIP_REASON}`);

export const fixture = (...parts: string[]) => join(FIXTURES, ...parts);

const created: string[] = [];
// Test files run isolated, so each one that uses these helpers gets this hook once.
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the test file. */
export function tmpDir(prefix = 'infx-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Writes `value` as YAML (or `text` verbatim when a string is given) and returns the path. */
export function writeYaml(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : yaml.dump(value, { lineWidth: 200 }));
  return path;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function runCli(argv: string[], stdin = ''): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    readStdin: async () => stdin,
    isTTY: false,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}
