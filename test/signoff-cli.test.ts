import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/** `infx signoff verify` on files, as the bot or a maintainer runs it. */

const PHRASE = 'As a PR reviewer and CODEOWNER, I have reviewed this and have:';
const ITEMS = ['Verified the latest checklist.', 'Verified validation passed (linked).'];

function files(signed: string) {
  const dir = tmpDir('infx-signoff-');
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  return {
    checklist: write(
      'checklist.md',
      `## Template\n\`\`\`\n${PHRASE}\n${ITEMS.map((i) => `- [ ] ${i}`).join('\n')}\n\`\`\`\n`,
    ),
    comment: write(
      'comment.md',
      `${PHRASE}\n${ITEMS.map((i) => `- [x] ${i}`).join('\n')}\nhttps://github.com/a/b/actions/runs/12\n\nSigned: ${signed}\n`,
    ),
    codeowners: write('CODEOWNERS', '* @org/core\nconfigs/amd-master.yaml @amd-a\n'),
    teams: write('teams.json', '{"@org/core": ["amd-a"]}'),
  };
}

const verify = (f: ReturnType<typeof files>, ...extra: string[]) =>
  spawnSync(
    process.execPath,
    [
      join(REPO_ROOT, 'bin/infx.js'),
      'signoff',
      'verify',
      '--comment',
      f.comment,
      '--checklist',
      f.checklist,
      '--codeowners',
      f.codeowners,
      '--author',
      'amd-a',
      '--changed-files',
      'configs/amd-master.yaml',
      'perf-changelog.yaml',
      ...extra,
    ],
    { encoding: 'utf8' },
  );

describe('infx signoff verify', () => {
  it('prints the verdict; exit 0 when it passes, 1 when rejected, with JSON on request', () => {
    const ok = verify(files('amd-a'), '--teams', files('amd-a').teams, '--sha', 'deadbeef');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('<!-- codeowner-signoff-verify sha=deadbeef -->');
    expect(ok.stdout).toContain('**Verdict: PASS**');
    const bad = verify(files('someone-else'), '--format', 'json');
    expect(bad.status).toBe(1);
    const report = JSON.parse(bad.stdout);
    expect(report.pass).toBe(false);
    expect(report.checks.find((c: { id: string }) => c.id === 'signed').status).toBe('fail');
  });

  it('names an unreadable input and a malformed CODEOWNERS line', () => {
    const f = files('amd-a');
    const missing = verify({ ...f, comment: join(f.comment, '..', 'nope.md') });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('cannot read the comment');
    writeFileSync(f.codeowners, '* @org/core\n!docs/ @x\n');
    const malformed = verify(f);
    expect(malformed.status).toBe(1);
    expect(malformed.stderr).toContain("CODEOWNERS:2: '!docs/'");
  });
});
