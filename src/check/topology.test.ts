import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { accelerator, model } from '../catalog/index.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import type { CheckPoint, Pool } from './points.ts';
import { gpusPerNode, hasRecipe, recipeFinding, topologyFindings } from './topology.ts';

const pool = (over: Partial<Pool> = {}): Pool => ({
  role: null,
  engines: 1,
  tp: 8,
  ep: 1,
  pp: 1,
  dpAttn: false,
  dcp: 1,
  pcp: 1,
  hardware: 'h200',
  sequences: 64,
  maxNumSeqs: null,
  offloadDramGb: 0,
  ...over,
});

const point = (over: Partial<CheckPoint> = {}): CheckPoint => ({
  scenario: 'fixed-seq-len',
  image: 'img:v1.0',
  model: 'dsr1',
  modelPrefix: 'dsr1',
  precision: 'fp8',
  framework: 'vllm',
  runner: 'h200',
  specDecoding: 'none',
  conc: 64,
  isl: 1024,
  osl: 1024,
  maxModelLen: 2304,
  kvOffloading: 'none',
  pools: [],
  label: 'tp=8 ep=1 conc=64 isl=1024 osl=1024',
  topology: 'tp=8 ep=1 isl=1024 osl=1024',
  ...over,
});

const noRunners: RunnerConfig = { labels: {}, hardware: {} };
const dsr1 = model('dsr1');
const h200 = accelerator('h200');
const rules = (p: Partial<Pool>, pt: Partial<CheckPoint> = {}, runners = noRunners) =>
  topologyFindings(point(pt), pool(p), dsr1, h200, runners).map((f) => f.rule);

describe('topologyFindings', () => {
  it('passes a point that can run', () => {
    expect(rules({})).toEqual([]);
  });

  it('tp must divide the attention heads, unless attention is data-parallel', () => {
    expect(dsr1.attention.heads).toBe(128);
    expect(rules({ tp: 3 })).toEqual(['topology.tp-heads']);
    expect(rules({ tp: 6, dpAttn: true })).toEqual([]);
  });

  it('a single-node point fits one node: runners.yaml first, else the accelerator', () => {
    expect(rules({ tp: 16 })).toEqual(['topology.exceeds-node']);
    expect(rules({ tp: 4, pp: 4 })).toEqual(['topology.exceeds-node']);
    const four: RunnerConfig = {
      labels: {},
      hardware: { h200: { 'available-cpu-dram-mib': 1, 'gpus-per-node': 4 } },
    };
    expect(rules({ tp: 8 }, {}, four)).toEqual(['topology.exceeds-node']);
    // Multi-node workers span nodes.
    expect(rules({ tp: 16, role: 'prefill' })).toEqual([]);
  });

  it('gpusPerNode: 8 on HGX boards, 4 on NVL72-class systems', () => {
    expect(gpusPerNode('h200', noRunners, h200)).toBe(8);
    expect(gpusPerNode('gb200', noRunners, accelerator('gb200'))).toBe(4);
  });

  it('ep is at most the GPUs of the point; a multi-node DEP worker is exempt', () => {
    expect(rules({ tp: 8, ep: 16 })).toEqual(['topology.ep-exceeds-gpus']);
    expect(rules({ tp: 8, ep: 16, dpAttn: true })).toEqual(['topology.ep-exceeds-gpus']);
    expect(rules({ tp: 4, ep: 8, role: 'decode' })).toEqual(['topology.ep-exceeds-gpus']);
    expect(rules({ tp: 1, ep: 8, role: 'decode', dpAttn: true })).toEqual([]);
  });

  it('max-model-len must be within the model context', () => {
    expect(rules({}, { isl: 200_000, maxModelLen: 201_280 })).toEqual(['context.max-model-len']);
    // Agentic points run at the model's own context.
    expect(rules({}, { scenario: 'agentic-coding', isl: null, osl: null, maxModelLen: null })).toEqual([]);
  });
});

describe('recipes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'infx-recipes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('built-in frameworks have one; atom and tilert do not, unless the user adds recipes/<framework>.sh', () => {
    expect(hasRecipe('vllm', dir)).toBe(true);
    expect(hasRecipe('dynamo-trt', dir)).toBe(true);
    expect(hasRecipe('atom', dir)).toBe(false);
    writeFileSync(join(dir, 'atom.sh'), '#!/bin/sh\n');
    expect(hasRecipe('atom', dir)).toBe(true);
    expect(hasRecipe('../atom', dir)).toBe(false);
    expect(hasRecipe('lib', dir)).toBe(false);
  });

  it('a framework without one is an error naming the file to add', () => {
    expect(recipeFinding('vllm')).toBeUndefined();
    expect(recipeFinding('tilert')).toMatchObject({ severity: 'error', rule: 'framework.no-recipe' });
    expect(recipeFinding('tilert')?.fix).toContain('recipes/tilert.sh');
  });
});
