import { describe, expect, it } from 'vitest';
import { commandOf } from '../src/cli/main.ts';
import { runCli } from './helpers.ts';

/** main.ts loads only the command a command line names; the rest of the time, all of them. */

describe('commandOf', () => {
  it.each<[string[], string | null | undefined]>([
    [['matrix', 'full-sweep'], 'matrix'],
    [['--catalog', 'c.yaml', 'bench', '--help'], 'bench'],
    [['--catalog=c.yaml', 'sweep'], 'sweep'],
    [['check', '--catalog', 'c.yaml'], 'check'],
    [['--version'], null],
    [['-V', 'bench'], null],
    [['--help'], undefined],
    [['help', 'bench'], undefined],
    [['matrx'], undefined],
    [[], undefined],
    [['--catalog'], undefined],
  ])('%j → %s', (argv, name) => {
    expect(commandOf(argv)).toBe(name);
  });
});

describe('the commands registered', () => {
  it('--help lists every command, in order', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    const names = [...r.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]);
    expect(names).toEqual([
      'validate',
      'matrix',
      'changelog',
      'schema',
      'bench',
      'sim',
      'check',
      'review',
      'signoff',
      'recipe',
      'sweep',
      'ingest',
      'reuse',
      'stage',
      'unstage',
      'audit',
      'verify',
      'compare',
      'plot',
      'serve',
      'router',
      'bot',
      'demo',
      'trace',
      'eval',
      'ci',
      'help',
    ]);
  });

  it('a mistyped command is still told the closest one', async () => {
    const r = await runCli(['matrx']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Did you mean matrix\?/);
  });
});
