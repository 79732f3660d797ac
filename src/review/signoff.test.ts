import { describe, expect, it } from 'vitest';
import { parseCodeowners } from './codeowners.ts';
import {
  checklistItems,
  formatVerdict,
  type SignoffInput,
  TRIGGER_PHRASE,
  verifySignoff,
} from './signoff.ts';

/** changelog-pr-spec §7: a sign-off comment against a checklist written in the checklist file's form. */

const ITEMS = [
  'Verified this is the latest checklist.',
  'Verified that PR validation passed. Link the workflow.',
  'Verified that evals pass. Link the workflow.',
  'If a criterion cannot be met, explained below.',
];
const CHECKLIST = [
  '# Review checklist',
  '',
  '## Template',
  '```',
  `${TRIGGER_PHRASE}, I have reviewed this and have:`,
  ...ITEMS.map((i) => `- [ ] ${i}`),
  '',
  '### Additional detail section:',
  '- insert any additional info here',
  '',
  'Signed: `FILL_IN_GITHUB_USERNAME`',
  '```',
].join('\n');
const RULES = parseCodeowners(
  '* @acme/core\nconfigs/amd-master.yaml @amd-a @amd-b\nconfigs/nvidia-master.yaml @nv-a @acme/core\n',
  'CODEOWNERS',
);
const RUN = 'https://github.com/acme/bench/actions/runs/35574132719';

const comment = (
  over: { items?: string[]; ticks?: boolean[]; detail?: string; signed?: string; phrase?: boolean } = {},
) =>
  [
    over.phrase === false ? 'I reviewed this:' : `${TRIGGER_PHRASE}, I have reviewed this and have:`,
    ...(over.items ?? ITEMS).map((t, i) => `- [${over.ticks?.[i] === false ? ' ' : 'x'}] ${t}`),
    `Validation: ${RUN}`,
    '',
    '### Additional detail section:',
    over.detail ?? '- insert any additional info here',
    '',
    `Signed: \`${over.signed ?? 'amd-a'}\``,
  ].join('\n');

const verify = (over: Partial<SignoffInput> = {}) =>
  verifySignoff({
    comment: comment(),
    checklist: CHECKLIST,
    rules: RULES,
    author: 'amd-a',
    changedFiles: ['configs/amd-master.yaml', 'perf-changelog.yaml'],
    ...over,
  });
const failed = (r: ReturnType<typeof verify>) => r.checks.filter((c) => c.status === 'fail').map((c) => c.id);

describe('sign-off verification', () => {
  it('accepts a complete sign-off by the owner of the changed config', () => {
    const r = verify({ sha: 'abc123' });
    expect(failed(r)).toEqual([]);
    expect(r.pass).toBe(true);
    expect(r.runIds).toEqual(['35574132719']);
    const text = formatVerdict(r);
    expect(
      text.startsWith('<!-- codeowner-signoff-verify sha=abc123 -->\n## ✅✅✅ **Verdict: PASS** ✅✅✅'),
    ).toBe(true);
  });

  it('rejects a missing phrase, a missing or reordered item, an unexplained unticked box', () => {
    expect(failed(verify({ comment: comment({ phrase: false }) }))).toEqual(['trigger']);
    expect(failed(verify({ comment: comment({ items: ITEMS.slice(0, 3) }) }))).toEqual(['checklist']);
    const swapped = [ITEMS[1], ITEMS[0], ITEMS[2], ITEMS[3]] as string[];
    expect(failed(verify({ comment: comment({ items: swapped }) }))).toEqual(['checklist']);
    expect(failed(verify({ comment: comment({ ticks: [true, false, true, true] }) }))).toEqual(['checklist']);
    const explained = comment({
      ticks: [true, false, true, true],
      detail: 'Validation reran after a runner fault.',
    });
    expect(verify({ comment: explained }).pass).toBe(true);
  });

  it('rejects no cited run and a signature that is not the author’s', () => {
    expect(failed(verify({ comment: comment().replace(RUN, 'pending') }))).toEqual(['runs']);
    expect(failed(verify({ comment: comment({ signed: 'someone' }) }))).toEqual(['signed']);
  });

  it('ownership: last match wins; catch-all paths need any owner; unknown teams are not held against', () => {
    expect(failed(verify({ changedFiles: ['configs/nvidia-master.yaml'] }))).toEqual([]);
    const nv = verify({
      author: 'amd-a',
      changedFiles: ['configs/nvidia-master.yaml'],
      teams: new Map([['@acme/core', ['x']]]),
    });
    expect(failed(nv)).toEqual(['codeowner']);
    expect(nv.checks.find((c) => c.id === 'codeowner')?.message).toContain('owned by @nv-a @acme/core');
    const stranger = verify({
      author: 'stranger',
      comment: comment({ signed: 'stranger' }),
      changedFiles: ['README.md'],
      teams: new Map([['@acme/core', ['x']]]),
    });
    expect(failed(stranger)).toEqual(['codeowner']);
    const member = verify({
      author: 'x',
      comment: comment({ signed: 'x' }),
      changedFiles: ['configs/nvidia-master.yaml'],
      teams: new Map([['@acme/core', ['X']]]),
    });
    expect(failed(member)).toEqual([]);
    expect(formatVerdict(nv)).toContain('## ❌❌❌ **REJECTED** ❌❌❌');
    expect(formatVerdict(nv)).toContain('@amd-a please fix');
  });
});

describe('sign-off forms of the user threads (addendum §3.6: follow the threads, accept HEAD too)', () => {
  // A template without boxes, as the threads show it: bullets, a nested item, a plain detail line.
  const PLAIN = [
    `${TRIGGER_PHRASE}, I have reviewed this and have:`,
    '',
    '- Verified this is the latest checklist.',
    '- Verified that PR validation passed. GitHub Actions run <id>',
    '- Verified that every single-node recipe is documented upstream:',
    '  - I linked the upstream recipe PR and verified that it is MERGED.',
    '- If a criterion cannot be met, explained below.',
    '',
    'Additional detail section:',
    '',
    '- insert any additional info here',
    '',
    'Signed: <user>',
  ].join('\n');
  const threadComment = (drop?: number) =>
    [
      `${TRIGGER_PHRASE}, I have reviewed this and have:`,
      '',
      '• Verified this is the latest checklist.',
      '• Verified that PR validation passed. GitHub Actions run 31965016666',
      '• Verified that every single-node recipe is documented upstream:',
      '  • I linked the upstream recipe PR and verified that it is MERGED.',
      '• If a criterion cannot be met, explained below.',
      '',
      'Additional detail section:',
      '',
      '• Run 31965016666 passed every point.',
      '',
      'Signed: @amd-a',
    ]
      .filter((_, i) => i !== drop)
      .join('\n');
  const plain = (comment: string) => verify({ comment, checklist: PLAIN });

  it('the template items end at the additional detail section', () => {
    expect(checklistItems(CHECKLIST)).toEqual(ITEMS);
    expect(checklistItems(PLAIN)).toHaveLength(5);
  });

  it('accepts a rendered sign-off citing "GitHub Actions run N", and rejects one missing the nested item', () => {
    const r = plain(threadComment());
    expect(failed(r)).toEqual([]);
    expect(r.runIds).toEqual(['31965016666']);
    expect(failed(plain(threadComment(5)))).toEqual(['checklist']);
  });

  it('an item may carry words after the template text; a boxed item written without its box is unticked', () => {
    const withLink = comment().replace(`[x] ${ITEMS[2]}`, `[x] ${ITEMS[2]} ${RUN}`);
    expect(failed(verify({ comment: withLink }))).toEqual([]);
    const noBox = comment().replace(`- [x] ${ITEMS[1]}`, `- ${ITEMS[1]}`);
    const r = verify({ comment: noBox });
    expect(failed(r)).toEqual(['checklist']);
    expect(r.checks.find((c) => c.id === 'checklist')?.message).toContain('neither ticked nor explained');
  });
});
