import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveScript } from './run.ts';
import { loadScript, parseScript, ScriptError, settingsFor } from './script.ts';

const dir = mkdtempSync(join(tmpdir(), 'infx-scripted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function errorOf(fn: () => unknown): ScriptError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScriptError) return err;
    throw err;
  }
  throw new Error('no ScriptError');
}

describe('script schema', () => {
  it('fills every default from an empty script', () => {
    expect(parseScript({})).toEqual({
      model: 'scripted',
      maxModelLen: null,
      defaults: {
        ttftMs: 20,
        itlMs: 5,
        outputTokens: null,
        tokensPerChunk: 1,
        reasoningChunks: 0,
        tokenText: 'tok ',
        usage: true,
        usageOffset: { prompt: 0, completion: 0 },
        promptTokens: null,
        roleChunk: 'with-first-token',
        fault: null,
      },
      requests: {},
      serial: false,
      burst: false,
      burstEventsPerWrite: 64,
    });
  });

  it('lays request overrides over the defaults, by arrival index', () => {
    const script = parseScript({
      defaults: { ttftMs: 50, fault: { kind: 'hang' } },
      requests: { '2': { ttftMs: 7, usageOffset: { completion: 3 }, fault: null } },
    });
    expect(settingsFor(script, 1)).toMatchObject({ ttftMs: 50, fault: { kind: 'hang' } });
    expect(settingsFor(script, 2)).toMatchObject({
      ttftMs: 7,
      itlMs: 5,
      usageOffset: { prompt: 0, completion: 3 },
      fault: null,
    });
  });

  it('names the source and the key path of every problem', () => {
    const err = errorOf(() =>
      parseScript(
        {
          defaults: { ttftMs: -1, itlMs: 'fast' },
          requests: { '3': { fault: { kind: 'explode' } }, first: {}, '4': { tokensPerChunk: 0, ttft: 1 } },
          serail: true,
        },
        's.json',
      ),
    );
    expect(err.lines).toEqual(
      expect.arrayContaining([
        's.json: defaults.ttftMs: must be >= 0',
        's.json: defaults.itlMs: expected a number of milliseconds',
        expect.stringMatching(
          /^s\.json: requests\.3\.fault\.kind: fault\.kind must be one of http, truncate/,
        ),
        expect.stringMatching(/^s\.json: requests\.first: 'first' is not a request index/),
        's.json: requests.4.tokensPerChunk: must be greater than 0',
        expect.stringMatching(/^s\.json: requests\.4: unknown key 'ttft'\. Did you mean 'ttftMs'\?/),
        expect.stringMatching(/^s\.json: \(top level\): unknown key 'serail'\. Did you mean 'serial'\?/),
      ]),
    );
  });
});

describe('loadScript', () => {
  it('reads JSON and YAML files', async () => {
    const json = file('a.json', '{"serial": true, "requests": {"0": {"fault": {"kind": "reset"}}}}');
    expect((await loadScript(json)).requests['0']!.fault).toEqual({ kind: 'reset' });
    const yaml = file('a.yaml', 'burst: true\ndefaults:\n  itlMs: 2.5\n');
    expect(await loadScript(yaml)).toMatchObject({ burst: true, defaults: { itlMs: 2.5 } });
  });

  it('reports unreadable files, syntax errors with line:col, and schema errors with the file name', async () => {
    await expect(loadScript(join(dir, 'missing.json'))).rejects.toThrow(
      /missing\.json: cannot read the script: no such file/,
    );
    const bad = file('bad.json', '{\n  "serial": true,\n  "burst" false\n}');
    await expect(loadScript(bad)).rejects.toThrow(/bad\.json:3:\d+: invalid JSON/);
    const badYaml = file('bad.yml', 'defaults:\n  ttftMs: [1,\n');
    await expect(loadScript(badYaml)).rejects.toThrow(/bad\.yml:\d+:\d+: invalid YAML/);
    const wrong = file('wrong.json', '{"defaults": {"usage": "yes"}}');
    await expect(loadScript(wrong)).rejects.toThrow(
      `${wrong}: defaults.usage: expected true or false, got str 'yes'`,
    );
  });

  it('applies command-line overrides on top of the file and checks them', async () => {
    const path = file('b.json', '{"defaults": {"ttftMs": 100, "itlMs": 9}}');
    const s = await resolveScript({ scriptPath: path, ttftMs: 1, burst: true, outputTokens: 3 });
    expect(s).toMatchObject({
      burst: true,
      serial: false,
      defaults: { ttftMs: 1, itlMs: 9, outputTokens: 3 },
    });
    await expect(resolveScript({ itlMs: -2 })).rejects.toThrow(
      'command-line flags: defaults.itlMs: must be >= 0',
    );
  });
});
