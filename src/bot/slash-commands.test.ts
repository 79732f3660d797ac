import { describe, expect, it } from 'vitest';
import { parseComment } from './slash-commands.ts';

describe('slash commands in a comment', () => {
  it('reads a command on a line of its own, pinned or not; the last command line decides', () => {
    expect(parseComment('/stage-results')).toEqual({
      kind: 'command',
      line: 1,
      command: { kind: 'stage', run: null },
    });
    expect(parseComment('  /reuse-sweep-run  2026-r1 \n')).toMatchObject({
      command: { kind: 'reuse', run: '2026-r1', spelled: '/reuse-sweep-run' },
    });
    expect(parseComment('/use r1\nthanks\n/use r2')).toMatchObject({
      line: 3,
      command: { run: 'r2', spelled: '/use' },
    });
  });

  it('ignores mentions inside sentences, quotes and code blocks', () => {
    expect(parseComment('please run /reuse-sweep-run 111 after merge')).toEqual({ kind: 'none' });
    expect(parseComment('> /stage-results\n```\n/use 5\n```')).toEqual({ kind: 'none' });
    expect(parseComment('/stage-resultsx')).toEqual({ kind: 'none' });
  });

  it('answers a malformed command with its usage', () => {
    expect(parseComment('/use')).toMatchObject({ kind: 'usage', name: '/use' });
    expect(parseComment('/reuse-sweep-run 1 2')).toMatchObject({ kind: 'usage', name: '/reuse-sweep-run' });
    expect(parseComment('/stage-results ../../etc')).toMatchObject({ kind: 'usage', name: '/stage-results' });
  });
});
