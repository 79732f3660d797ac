import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/** `infx trace synth` → `infx trace stats` through the installed binary, and a bad line's exit and message. */

const BIN = join(REPO_ROOT, 'bin/infx.js');
const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));
const infx = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, HF_HUB_CACHE: '', ...env },
  });

describe.skipIf(!built)(`infx trace${built ? '' : ' (not built: run npm run build)'}`, () => {
  it('synthesizes a corpus the same way twice and summarises it', () => {
    const dir = tmpDir();
    const a = infx(
      ['trace', 'synth', '--traces', '4', '--seed', '9', '--max-context', '256k', '--out', 'a.jsonl'],
      dir,
    );
    expect(a.status).toBe(0);
    expect(a.stderr).toContain('wrote 4 traces to a.jsonl');
    const b = infx(['trace', 'synth', '--traces', '4', '--seed', '9', '--max-context', '256k'], dir);
    expect(b.status).toBe(0);
    expect(b.stdout).toBe(readFileSync(join(dir, 'a.jsonl'), 'utf8'));

    const stats = infx(['trace', 'stats', 'a.jsonl', '--format', 'json'], dir);
    expect(stats.status).toBe(0);
    const s = JSON.parse(stats.stdout);
    expect(s.traces).toBe(4);
    expect(s.requests).toBe(s.topLevelTurns + s.subagentRequests);
    expect(s.maxContext).toBeLessThanOrEqual(256_000);
    expect(s.theoreticalPrefixCacheHitRate).toBeGreaterThan(0);
    expect(s.theoreticalPrefixCacheHitRate).toBeLessThan(1);

    const text = infx(['trace', 'stats', 'a.jsonl'], dir);
    expect(text.stdout).toMatch(/^traces +4$/m);
    expect(text.stdout).toMatch(/theoretical prefix-cache hit rate +\d+\.\d\d%/);
  });

  it('a malformed line: exit 1, file:line and the field; a bad --max-context: exit 2', () => {
    const dir = tmpDir();
    const good = infx(
      ['trace', 'synth', '--traces', '1', '--seed', '1', '--max-context', '256k'],
      dir,
    ).stdout;
    writeFileSync(join(dir, 'bad.jsonl'), `${good}${good.replace('"block_size":64', '"block_size":-64')}`);
    const bad = infx(['trace', 'stats', 'bad.jsonl'], dir);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error: bad\.jsonl:2: trace synth-1-0000: block_size: /m);
    expect(bad.stderr).toMatch(/^hint: each line of a traces\.jsonl file is one trace/m);
    expect(bad.stdout).toBe('');

    writeFileSync(join(dir, 'empty.jsonl'), '');
    const empty = infx(['trace', 'stats', 'empty.jsonl'], dir);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('error: the corpus is empty: no trace in empty.jsonl');

    const flag = infx(['trace', 'stats', 'bad.jsonl', '--max-context', '1G'], dir);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain(
      "--max-context must be 1M (1048576 tokens), 256k (256000) or a positive token count, got '1G'",
    );
  });

  it('counts the traces --max-context drops, on stderr', () => {
    const dir = tmpDir();
    infx(['trace', 'synth', '--traces', '3', '--seed', '2', '--out', 'c.jsonl'], dir);
    const all = JSON.parse(infx(['trace', 'stats', 'c.jsonl', '--format', 'json'], dir).stdout);
    const cap = String(all.maxContext - 1);
    const r = infx(['trace', 'stats', 'c.jsonl', '--format', 'json', '--max-context', cap], dir);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `note: \\d traces? over --max-context ${cap} dropped \\(the longest needs ${all.maxContext} tokens\\)`,
      ),
    );
    const s = JSON.parse(r.stdout);
    expect(s.droppedTraces).toBeGreaterThanOrEqual(1);
    expect(s.traces + s.droppedTraces).toBe(3);
  });

  it('--public reads the corpus of a model prefix from the local Hugging Face cache, or says where it looked', () => {
    const dir = tmpDir();
    const snapshot = join(
      dir,
      'hf/hub/datasets--semianalysisai--cc-traces-weka-062126-256k/snapshots/0123abc',
    );
    mkdirSync(snapshot, { recursive: true });
    const corpus = infx(
      ['trace', 'synth', '--traces', '2', '--seed', '5', '--max-context', '256k'],
      dir,
    ).stdout;
    writeFileSync(join(snapshot, 'traces.jsonl'), corpus);
    const env = { HF_HOME: join(dir, 'hf') };
    const found = infx(['trace', 'stats', '--public', 'gptoss', '--format', 'json'], dir, env);
    expect(found.status).toBe(0);
    expect(JSON.parse(found.stdout).files).toEqual([join(snapshot, 'traces.jsonl')]);
    const absent = infx(['trace', 'stats', '--public', 'dsv4'], dir, env);
    expect(absent.status).toBe(1);
    expect(absent.stderr).toContain(
      `no traces.jsonl under ${join(dir, 'hf/hub/datasets--semianalysisai--cc-traces-weka-062126/snapshots')}`,
    );
    expect(infx(['trace', 'stats'], dir).status).toBe(2);
  });
});
