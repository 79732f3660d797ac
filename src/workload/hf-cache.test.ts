import { cpSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from '../../test/helpers.ts';
import { findInHubCache, hubCacheDir, looksLikeModelId } from './hf-cache.ts';
import { BUILTIN_TOKENIZER, loadTokenizer } from './tokenizers.ts';

/** A fake Hugging Face cache in the hub layout: models--org--name/{refs/main, snapshots/<commit>/}. */
function fakeCache(commits: string[], main: string | null): string {
  const hub = tmpDir('infx-hf-');
  const repo = join(hub, 'models--acme--tiny-model');
  for (const c of commits) {
    const dir = join(repo, 'snapshots', c);
    mkdirSync(dir, { recursive: true });
    cpSync(join(REPO_ROOT, 'test/data/tokenizers/tiny-bpe/tokenizer.json'), join(dir, 'tokenizer.json'));
  }
  if (main !== null) {
    mkdirSync(join(repo, 'refs'), { recursive: true });
    writeFileSync(join(repo, 'refs', 'main'), `${main}\n`);
  }
  return hub;
}

const saved = { ...process.env };
afterEach(() => {
  process.env.HF_HUB_CACHE = saved.HF_HUB_CACHE;
  if (saved.HF_HUB_CACHE === undefined) delete process.env.HF_HUB_CACHE;
});

describe('the local Hugging Face cache', () => {
  it('finds the hub folder as huggingface_hub does', () => {
    expect(hubCacheDir({ HF_HUB_CACHE: '/x/hub', HF_HOME: '/h' })).toBe('/x/hub');
    expect(hubCacheDir({ HF_HOME: '/h' })).toBe('/h/hub');
    expect(hubCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/huggingface/hub');
  });

  it('resolves refs/main, else the newest snapshot that has the file', () => {
    const hub = fakeCache(['aaaa1111', 'bbbb2222'], 'aaaa1111');
    expect(findInHubCache('acme/tiny-model', 'tokenizer.json', { HF_HUB_CACHE: hub }).dir).toMatch(
      /aaaa1111$/,
    );
    const noRef = fakeCache(['aaaa1111', 'bbbb2222'], null);
    utimesSync(
      join(noRef, 'models--acme--tiny-model/snapshots/aaaa1111'),
      new Date(2020, 1),
      new Date(2020, 1),
    );
    expect(findInHubCache('acme/tiny-model', 'tokenizer.json', { HF_HUB_CACHE: noRef }).dir).toMatch(
      /bbbb2222$/,
    );
    expect(findInHubCache('acme/other', 'tokenizer.json', { HF_HUB_CACHE: hub }).dir).toBeNull();
  });

  it('tells a model id from a path', () => {
    expect(looksLikeModelId('meta-llama/Llama-3.1-8B-Instruct')).toBe(true);
    expect(looksLikeModelId('gpt2')).toBe(true);
    for (const p of ['./tok', '/abs/dir', 'a/b/c', '../x', 'tok/tokenizer.json', '~/x'])
      expect(looksLikeModelId(p)).toBe(false);
  });

  it('loadTokenizer takes a model id from the cache, and falls back to the built-in one with a warning', async () => {
    process.env.HF_HUB_CACHE = fakeCache(['cafe0001'], 'cafe0001');
    const warnings: string[] = [];
    const byId = await loadTokenizer({ path: 'acme/tiny-model', warn: (m) => warnings.push(m) });
    expect(byId.kind).toBe('huggingface');
    expect(byId.path).toMatch(/snapshots\/cafe0001$/);
    const byModel = await loadTokenizer({ model: 'acme/tiny-model' });
    expect(byModel.path).toBe(byId.path);
    expect(warnings).toEqual([]);
    const missing = await loadTokenizer({ model: 'acme/absent', warn: (m) => warnings.push(m) });
    expect(missing.name).toBe(BUILTIN_TOKENIZER);
    expect(warnings[0]).toContain('the tokenizer of acme/absent is not in the local Hugging Face cache');
    expect(warnings[0]).toContain('hf download acme/absent tokenizer.json');
    // A path that does not exist and is no model id stays an error.
    await expect(loadTokenizer({ path: './no/such/dir' })).rejects.toThrow(/does not exist/);
  });
});
