import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkloadError } from './errors.ts';
import { TOKENIZER_LIBRARIES, tokenizerFingerprint } from './fingerprint.ts';
import { BUILTIN_TOKENIZER, loadTokenizer } from './tokenizers.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TINY = join(ROOT, 'test/data/tokenizers/tiny-bpe');

const temps: string[] = [];
afterAll(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
/** A temporary model directory with the tiny tokenizer.json and the given extra files. */
function modelDir(files: Record<string, string> = {}, withTokenizer = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'infx-tok-'));
  temps.push(dir);
  if (withTokenizer) copyFileSync(join(TINY, 'tokenizer.json'), join(dir, 'tokenizer.json'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
const tinyConfig = () => JSON.parse(readFileSync(join(TINY, 'tokenizer_config.json'), 'utf8'));

async function loadError(path: string): Promise<WorkloadError> {
  const err = await loadTokenizer({ path }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkloadError);
  return err as WorkloadError;
}

describe('built-in o200k_base', () => {
  it('is a real BPE vocabulary without special tokens in its id range', async () => {
    const tok = await loadTokenizer();
    expect(tok).toMatchObject({ kind: 'builtin', name: BUILTIN_TOKENIZER, path: null, vocabSize: 199998 });
    expect(await loadTokenizer({})).toBe(tok); // loaded once
    const { createO200KSpecialTokenMap } = await import('gpt-tokenizer/encodingParams/o200k_base');
    for (const id of createO200KSpecialTokenMap().values()) expect(id).toBeGreaterThanOrEqual(tok.vocabSize);
    expect(tok.decode([tok.vocabSize - 1]).length).toBeGreaterThan(0);
    expect(() => tok.decode([tok.vocabSize])).toThrow(/outside/);
    expect(tok.applyChatTemplate('hi')).toBeNull();
  });

  it('round-trips text and treats special-token text as plain text', async () => {
    const tok = await loadTokenizer();
    const text = 'Hello world! Throughput per GPU vs. interactivity: 1234 tok/s.';
    const ids = tok.encode(text);
    expect(ids.length).toBeGreaterThan(5);
    expect(ids.length).toBeLessThan(30);
    expect(tok.decode(ids)).toBe(text);
    const special = tok.encode('a <|endoftext|> b <|im_start|>');
    expect(special.length).toBeGreaterThan(4);
    for (const id of special) expect(id).toBeLessThan(tok.vocabSize);
    expect(tok.decode(special)).toBe('a <|endoftext|> b <|im_start|>');
    expect(tok.encode('')).toEqual([]);
    expect(tok.decode([])).toBe('');
  });

  it('decodes each call on its own (no partial UTF-8 bytes carried into the next call)', async () => {
    const tok = await loadTokenizer();
    const { default: ranks } = await import('gpt-tokenizer/bpeRanks/o200k_base');
    const byteToken = (b: number) => ranks.findIndex((v) => Array.isArray(v) && v.length === 1 && v[0] === b);
    const [e2, x82, xac] = [byteToken(0xe2), byteToken(0x82), byteToken(0xac)]; // '€' = E2 82 AC
    expect(tok.decode([e2, x82, xac])).toBe('€');
    // gpt-tokenizer's own decode returns '' here and then '€' for the next call.
    expect(tok.decode([e2])).toBe('\uFFFD');
    expect(tok.decode([x82, xac])).toBe('\uFFFD\uFFFD');
  });

  it('pins the tokenizer library versions that fingerprints name', () => {
    for (const [name, version] of Object.entries(TOKENIZER_LIBRARIES)) {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
      expect(`${name}@${pkg.version}`).toBe(`${name}@${version}`);
    }
  });
});

describe('Hugging Face tokenizer directory', () => {
  it('loads tiny-bpe: base vocab without added tokens, no special tokens added when encoding', async () => {
    const tok = await loadTokenizer({ path: TINY });
    expect(tok).toMatchObject({ kind: 'huggingface', name: 'tiny-bpe', path: TINY, vocabSize: 556 });
    const text = 'Hello world! The benchmark measures 12345 tokens.';
    const ids = tok.encode(text);
    expect(ids[0]).not.toBe(556); // no <|begin_of_text|>
    for (const id of ids) expect(id).toBeLessThan(556);
    expect(tok.decode(ids)).toBe(text);
    expect(tok.encode('a<|eot_id|>b')).toEqual([...tok.encode('a'), 560, ...tok.encode('b')]);
    expect(tok.decode([])).toBe('');
  });

  it('accepts a path to tokenizer.json itself', async () => {
    const tok = await loadTokenizer({ path: join(TINY, 'tokenizer.json') });
    expect(tok).toMatchObject({ name: 'tiny-bpe', path: TINY, vocabSize: 556 });
    expect(tok.applyChatTemplate('a')).not.toBeNull();
  });

  it('renders the chat template with the generation prompt and the special tokens', async () => {
    const tok = await loadTokenizer({ path: TINY });
    expect(tok.applyChatTemplate('hi there')).toBe(
      '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi there<|eot_id|>' +
        '<|start_header_id|>assistant<|end_header_id|>\n\n',
    );
  });

  it('picks the "default" template of a list, and prefers chat_template.jinja', async () => {
    const config = tinyConfig();
    config.chat_template = [
      { name: 'tool_use', template: 'TOOLS {{ messages[0].content }}' },
      {
        name: 'default',
        template: '{{ bos_token }}U: {{ messages[0].content }}{% if add_generation_prompt %} A:{% endif %}',
      },
    ];
    const listed = await loadTokenizer({
      path: modelDir({ 'tokenizer_config.json': JSON.stringify(config) }),
    });
    expect(listed.applyChatTemplate('x')).toBe('<|begin_of_text|>U: x A:');
    const jinja = await loadTokenizer({
      path: modelDir({
        'tokenizer_config.json': JSON.stringify(config),
        'chat_template.jinja': '[{{ messages[0].content }}]',
      }),
    });
    expect(jinja.applyChatTemplate('x')).toBe('[x]');
    config.chat_template = [{ name: 'tool_use', template: 'x' }];
    const err = await loadError(modelDir({ 'tokenizer_config.json': JSON.stringify(config) }));
    expect(err.message).toMatch(/tool_use.*"default"/);
  });

  it('works without tokenizer_config.json (no chat template) and fingerprints by content', async () => {
    const bare = await loadTokenizer({ path: modelDir() });
    expect(bare.vocabSize).toBe(556);
    expect(bare.applyChatTemplate('a')).toBeNull();
    const tiny = await loadTokenizer({ path: TINY });
    const again = await loadTokenizer({ path: TINY });
    const builtin = await loadTokenizer();
    expect(tokenizerFingerprint(tiny)).toBe(tokenizerFingerprint(again));
    expect(new Set([bare, tiny, builtin].map(tokenizerFingerprint)).size).toBe(3);
    expect(tokenizerFingerprint({ ...builtin, fingerprint: undefined } as never)).toBeNull();
  });

  it('says what is wrong and how to fix it', async () => {
    const missing = join(tmpdir(), 'infx-no-such-model-dir');
    expect((await loadError(missing)).message).toMatch(
      /infx-no-such-model-dir does not exist.*tokenizer\.json/,
    );

    const empty = modelDir({ 'config.json': '{}' }, false);
    expect((await loadError(empty)).message).toMatch(new RegExp(`no tokenizer\\.json in ${empty}.*convert`));

    const badJson = modelDir({ 'tokenizer.json': '{"model": ' });
    const e1 = await loadError(badJson);
    expect(e1.message).toContain(`invalid JSON in ${join(badJson, 'tokenizer.json')}`);

    const lfs = modelDir({
      'tokenizer.json': 'version https://git-lfs.github.com/spec/v1\noid sha256:abc\n',
    });
    expect((await loadError(lfs)).message).toMatch(/git lfs pull/);

    const badConfig = modelDir({ 'tokenizer_config.json': '{,}' });
    expect((await loadError(badConfig)).message).toContain(
      `invalid JSON in ${join(badConfig, 'tokenizer_config.json')}`,
    );

    const json = JSON.parse(readFileSync(join(TINY, 'tokenizer.json'), 'utf8'));
    json.model.type = 'WordLevel';
    const unsupported = modelDir({ 'tokenizer.json': JSON.stringify(json) });
    const e2 = await loadError(unsupported);
    expect(e2.message).toMatch(/unsupported tokenizer in .*tokenizer\.json: model type WordLevel/);
    json.model.type = 'BPE';
    json.pre_tokenizer = { type: 'NoSuchPreTokenizer' };
    const e3 = await loadError(modelDir({ 'tokenizer.json': JSON.stringify(json) }));
    expect(e3.message).toMatch(/unsupported tokenizer in .*: Unknown PreTokenizer type: NoSuchPreTokenizer/);

    const badTemplate = modelDir({ 'chat_template.jinja': '{% for %}' });
    expect((await loadError(badTemplate)).message).toMatch(
      /cannot parse the chat template in .*chat_template\.jinja/,
    );

    const raising = modelDir({ 'chat_template.jinja': "{{ raise_exception('system message required') }}" });
    expect((await loadError(raising)).message).toMatch(/failed to render: .*system message required/);
  });

  it('reads a template-less directory nested under a path with a trailing slash', async () => {
    const dir = modelDir();
    mkdirSync(join(dir, 'sub'));
    copyFileSync(join(dir, 'tokenizer.json'), join(dir, 'sub', 'tokenizer.json'));
    expect((await loadTokenizer({ path: `${join(dir, 'sub')}/` })).name).toBe('sub');
  });
});
