import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable } from '../../test/helpers.ts';
import { AcceleratorSpecSchema, ModelSpecSchema } from '../schema/catalog.ts';
import { ACCELERATORS } from './accelerators.ts';
import { accelerator, CatalogError, listAccelerators, listModels, model } from './index.ts';
import { MODELS } from './models.ts';

const REQUIRED_ACCELERATORS = [
  'h100',
  'h200',
  'b200',
  'b300',
  'gb200',
  'gb300',
  'mi300x',
  'mi325x',
  'mi355x',
  'rtx6000pro',
  'a100',
  'a100-40gb',
  'l40s',
  'l4',
  'h20',
  'gh200',
  'mi250x',
];

/** Paths of an object's leaves ("a.b"), for checking that `estimated` names real fields. */
function fieldPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  const paths = prefix === '' ? [] : [prefix];
  for (const [k, v] of Object.entries(value))
    paths.push(...fieldPaths(v, prefix === '' ? k : `${prefix}.${k}`));
  return paths;
}

describe('catalog data', () => {
  it.each(ACCELERATORS.map((a) => [a.id, a] as const))(
    'accelerator %s validates against the schema',
    (_, a) => {
      expect(AcceleratorSpecSchema.parse(a)).toEqual(a);
      const fields = new Set(fieldPaths(a));
      for (const f of a.estimated) expect(fields, `estimated field ${f}`).toContain(f);
      expect(a.estimated).toContain('pricePerGpuHour');
      for (const s of a.sources) expect(s.url).toMatch(/^https:\/\//);
    },
  );

  it.each(MODELS.map((m) => [m.id, m] as const))('model %s validates against the schema', (_, m) => {
    expect(ModelSpecSchema.parse(m)).toEqual(m);
    const fields = new Set(fieldPaths(m));
    for (const f of m.estimated) expect(fields, `estimated field ${f}`).toContain(f);
    for (const s of m.sources) expect(s.url).toMatch(/^https:\/\//);
    expect(m.activeParamsB).toBeLessThanOrEqual(m.totalParamsB);
    expect(m.kvLayers).toBeLessThanOrEqual(m.layers);
    if (m.moe === null) expect(m.activeParamsB).toBe(m.totalParamsB);
    else expect(m.moe.activeExperts).toBeLessThan(m.moe.experts);
  });

  it('has every required accelerator, each id once, with dense (not sparse) tensor figures', () => {
    const ids = listAccelerators().map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of REQUIRED_ACCELERATORS) expect(ids).toContain(id);
    for (const a of listAccelerators()) {
      // fp8 is twice bf16 on every listed chip that has it; a sparse figure slipping in would break the ratio.
      if (a.denseTflops.fp8 !== null) expect(a.denseTflops.fp8 / a.denseTflops.bf16).toBeCloseTo(2, 1);
    }
    for (const id of ['a100', 'a100-40gb', 'mi250x']) expect(accelerator(id).denseTflops.fp8).toBeNull();
    expect(accelerator('h100').scaleUp).toEqual({ domainGpus: 8, bandwidthGBs: 450 });
    expect(accelerator('b200').scaleUp.bandwidthGBs).toBe(900);
    expect(accelerator('gb200').scaleUp.domainGpus).toBe(72);
    expect(accelerator('gb300').scaleUp.domainGpus).toBe(72);
    expect(accelerator('mi355x').scaleUp.domainGpus).toBe(8);
    expect(accelerator('h100').scaleOutGBs).toBe(50);
    expect(accelerator('gb300').scaleOutGBs).toBe(100);
    expect(accelerator('b300').scaleOutGBs).toBe(100);
  });

  it('hands out frozen entries', () => {
    expect(Object.isFrozen(model('dsr1'))).toBe(true);
    expect(Object.isFrozen(model('dsr1').moe)).toBe(true);
    expect(Object.isFrozen(accelerator('h100').denseTflops)).toBe(true);
    expect(Object.isFrozen(listModels())).toBe(true);
  });

  it('names each model once and every alias resolves to its own model', () => {
    const ids = listModels().map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const m of listModels()) {
      expect(model(m.id)).toBe(m);
      for (const alias of m.aliases) expect(model(alias), alias).toBe(m);
    }
  });
});

describe('accelerator()', () => {
  it.each([
    ['h100', 'h100'],
    ['H100', 'h100'],
    ['cluster:gb300-nv', 'gb300'],
    ['gb300-nv', 'gb300'],
    ['mi355x-disagg', 'mi355x'],
    ['cluster:mi355x-amds', 'mi355x'],
    ['rtx6000pro-lat', 'rtx6000pro'],
    ['cluster:h100-dgxc', 'h100'],
    ['h100-dgxc-slurm_03', 'h100'],
    ['b200-nscale-slurm_1', 'b200'],
    ['b200-dsv4', 'b200'],
    ['b200-new', 'b200'],
    ['b200-multinode', 'b200'],
    ['cluster:mi325x-tw', 'mi325x'],
    ['b300-p1', 'b300'],
    [' CLUSTER:B300-NV ', 'b300'],
  ])('%s → %s', (label, id) => {
    expect(accelerator(label).id).toBe(id);
  });

  it('rejects unknown names with a CatalogError naming the known ids and the file to extend', () => {
    expect(() => accelerator('tpu-v5e')).toThrow(CatalogError);
    expect(() => accelerator('tpu-v5e')).toThrow(
      /unknown accelerator 'tpu-v5e': known: h100, h200, .*mi355x/,
    );
    expect(() => accelerator('tpu-v5e')).toThrow(
      /add it in a catalog file of your own \(--catalog FILE, or \.infx\/catalog\.yaml; README § Catalog\) or to src\/catalog\/accelerators\.ts/,
    );
    // An unknown suffix is not stripped: a typo must not silently resolve.
    expect(() => accelerator('h100-foo')).toThrow(/RUNNER_SUFFIXES in src\/catalog\/index\.ts/);
    expect(() => accelerator('')).toThrow(CatalogError);
  });
});

describe('model()', () => {
  it.each([
    ['dsr1', 'deepseek-ai/DeepSeek-R1-0528'],
    ['DSR1', 'deepseek-ai/DeepSeek-R1-0528'],
    ['nvidia/DeepSeek-R1-0528-NVFP4-v2', 'deepseek-ai/DeepSeek-R1-0528'],
    ['amd/DeepSeek-R1-0528-MXFP4', 'deepseek-ai/DeepSeek-R1-0528'],
    ['deepseek-r1-fp4', 'deepseek-ai/DeepSeek-R1-0528'],
    ['DeepSeek-R1-0528', 'deepseek-ai/DeepSeek-R1-0528'],
    ['dsv4', 'deepseek-ai/DeepSeek-V4-Pro'],
    ['qwen3.5', 'Qwen/Qwen3.5-397B-A17B'],
    ['Qwen/Qwen3.5-397B-A17B-FP8', 'Qwen/Qwen3.5-397B-A17B'],
    ['glm5.1', 'zai-org/GLM-5.1'],
    ['glm5.2', 'zai-org/GLM-5.2'],
    ['minimaxm3', 'MiniMaxAI/MiniMax-M3'],
    ['kimik3', 'moonshotai/Kimi-K3'],
    ['kimik2.6', 'moonshotai/Kimi-K2.6'],
    // Variants not listed resolve by stripping quantization suffixes.
    ['nvidia/Qwen3.5-397B-A17B-NVFP4-V3', 'Qwen/Qwen3.5-397B-A17B'],
    ['someorg/Llama-3.1-8B-Instruct-FP8', 'meta-llama/Llama-3.1-8B-Instruct'],
    ['amd/Kimi-K3-MXFP4', 'moonshotai/Kimi-K3'],
  ])('%s → %s', (name, id) => {
    expect(model(name).id).toBe(id);
  });

  it('rejects unknown names with a CatalogError naming the known models and the file to extend', () => {
    expect(() => model('llama4')).toThrow(CatalogError);
    expect(() => model('llama4')).toThrow(
      /unknown model 'llama4': known: deepseek-ai\/DeepSeek-R1-0528 \(dsr1\)/,
    );
    expect(() => model('llama4')).toThrow(/in a catalog file of your own .* or to src\/catalog\/models\.ts/);
    // Suffix stripping never reduces a name to an unrelated model.
    expect(() => model('fp8')).toThrow(CatalogError);
  });
});

interface MasterEntry {
  model?: unknown;
  'model-prefix'?: unknown;
  runner?: unknown;
}

function masterEntries(): [string, MasterEntry][] {
  return ['nvidia-master.yaml', 'amd-master.yaml'].flatMap((file) => {
    const doc = yaml.load(readFileSync(fixture('configs', file), 'utf8')) as Record<string, MasterEntry>;
    return Object.entries(doc).map(([key, entry]): [string, MasterEntry] => [`${file}:${key}`, entry]);
  });
}

describe.skipIf(!fixturesAvailable)(
  `reference fixtures ${fixturesAvailable ? '' : FIXTURES_SKIP_REASON}`,
  () => {
    it('resolves every master-config model and model-prefix, each pair to the same model', () => {
      const entries = masterEntries();
      expect(entries.length).toBeGreaterThan(100);
      for (const [key, entry] of entries) {
        expect(typeof entry.model, `${key} model`).toBe('string');
        expect(typeof entry['model-prefix'], `${key} model-prefix`).toBe('string');
        const byId = model(entry.model as string);
        const byPrefix = model(entry['model-prefix'] as string);
        expect(byId.id, `${key}: ${entry.model} vs ${entry['model-prefix']}`).toBe(byPrefix.id);
      }
    });

    it('resolves every master-config runner to an accelerator', () => {
      for (const [key, entry] of masterEntries()) {
        expect(typeof entry.runner, `${key} runner`).toBe('string');
        expect(() => accelerator(entry.runner as string), key).not.toThrow();
      }
    });

    it('resolves every runner label, hardware key and runner instance of runners.yaml', () => {
      const doc = yaml.load(readFileSync(fixture('configs', 'runners.yaml'), 'utf8')) as {
        labels: Record<string, string[]>;
        hardware: Record<string, unknown>;
      };
      const names = [
        ...Object.keys(doc.labels),
        ...Object.keys(doc.hardware),
        ...Object.values(doc.labels).flat(),
      ];
      expect(names.length).toBeGreaterThan(50);
      for (const name of names) expect(() => accelerator(name), name).not.toThrow();
      expect(accelerator('cluster:rtx6000pro-lat').id).toBe('rtx6000pro');
    });
  },
);
