import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../src/config/diagnostics.ts';
import { loadMasterConfigs, loadRunnerConfig } from '../src/config/load.ts';
import type { Diagnostic, DocPath } from '../src/schema/diagnostic.ts';
import { runCli, tmpDir, writeYaml } from './helpers.ts';

/**
 * Broken master configs and runners.yaml files (matrix-spec §1–§2). Every variant starts from one valid
 * base written out below, changes a few literal lines, and states exactly which diagnostics must come back:
 * the file, the 1-based line (and column where there is only one sensible column), the rule id, and a
 * message that says what is wrong. A variant passes only when these diagnostics, and no others, are reported.
 *
 * Edits name lines of the BASE; expected lines and columns are those of the edited text, and each one also
 * names the text that must stand there (`at`), so a miscounted expectation fails loudly instead of silently.
 */

// The base master config (78 lines). A map of the line numbers that the edits below name follows it.
const BASE_MASTER = `# infx bad-config suite: the valid base every variant starts from
dsr1-fp8-h200-sglang:
  image: lmsysorg/sglang:v0.5.5-cu129
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  precision: fp8
  framework: sglang
  runner: h200
  multinode: false
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - { tp: 8, ep: 1, conc-start: 4, conc-end: 64 }
          - tp: 8
            dcp-size: 2
            spec-decoding: mtp
            conc-list: [4, 8, 16]
      - isl: 8192
        osl: 1024
        search-space:
          - { tp: 4, conc-start: 1, conc-end: 32 }
dsr1-fp4-b300-vllm-agentic:
  image: vllm/vllm-openai:v0.11.0
  model: nvidia/DeepSeek-R1-FP4
  model-prefix: dsr1
  precision: fp4
  framework: vllm
  runner: cluster:b300-nv
  multinode: false
  scenarios:
    agentic-coding:
      - dram-utilization: 0.5
        search-space:
          - tp: 8
            kv-offloading: dram
            kv-offload-backend: { name: lmcache, version: "0.3.9" }
            conc-list: [1, 2, 4]
          - tp: 4
            kv-offloading: none
            conc-start: 1
            conc-end: 8
dsr1-fp4-gb200-dynamo-trt:
  image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.5.1
  model: nvidia/DeepSeek-R1-FP4
  model-prefix: dsr1
  precision: fp4
  framework: dynamo-trt
  runner: cluster:gb200-nv
  multinode: true
  disagg: true
  kv-p2p-transfer: nixl
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - conc-list: [2150]
            prefill:
              num-worker: 5
              tp: 4
              ep: 4
              dp-attn: true
              hardware: gb200
              additional-settings:
                - "PREFILL_MAX_NUM_TOKENS=8448"
            decode:
              num-worker: 1
              tp: 8
              ep: 8
              dp-attn: true
              hardware: gb200
    agentic-coding:
      - search-space:
          - conc-list: [1, 4]
            prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: false }
            decode: { num-worker: 1, tp: 4, ep: 4, dp-attn: false }
`;
//  1 comment                          24 dsr1-fp4-b300-vllm-agentic:       44 dsr1-fp4-gb200-dynamo-trt:
//  2 dsr1-fp8-h200-sglang:            30   runner: cluster:b300-nv         50   runner: cluster:gb200-nv
//  8   runner: h200                   34       - dram-utilization: 0.5     52   disagg: true
//  9   multinode: false               36           - tp: 8                 53   kv-p2p-transfer: nixl
// 10   scenarios:                     37             kv-offloading: dram   59           - conc-list: [2150]
// 15           - { tp: 8, ep: 1, … }  38             kv-offload-backend    60             prefill:
// 16           - tp: 8                40           - tp: 4                 68             decode:
// 17             dcp-size: 2          41             kv-offloading: none   73               hardware: gb200
// 19             conc-list: [4, …]    42             conc-start: 1         76           - conc-list: [1, 4]
// 23           - { tp: 4, conc-start: 1, conc-end: 32 }                    77             prefill: { … }

const BASE_RUNNERS = `# runners.yaml: the valid base
labels:
  h200: [h200-cw_0, h200-cw_1, h200-nb_0]
  gb200: [gb200-nv_0]
  cluster:b300-nv: [b300-nv_0, b300-nv_1]
  cluster:gb200-nv:
    - gb200-nv_0
    - gb200-nv_1
hardware:
  cluster:b300-nv:
    available-cpu-dram-mib: 2_964_436
    gpus-per-node: 8
  cluster:gb200-nv: { available-cpu-dram-mib: 860_160, gpus-per-node: 4 }
`;

// ---------------------------------------------------------------------------------------------------------
// Edits of a base text, all in base line numbers (applied bottom-up so they do not shift each other).

type Edit =
  | { op: 'sub'; line: number; from: string; to: string }
  | { op: 'set'; line: number; was: string; lines: string[] }
  | { op: 'ins'; after: number; lines: string[] };

/** Replace `from` (which must occur on base line `line`) with `to`. */
const sub = (line: number, from: string, to: string): Edit => ({ op: 'sub', line, from, to });
/** Replace base line `line` (which must contain `was`) with `lines`; no lines deletes it. */
const set = (line: number, was: string, ...lines: string[]): Edit => ({ op: 'set', line, was, lines });
const del = (line: number, was: string): Edit => set(line, was);
/** Insert `lines` after base line `after` (0 inserts at the top). */
const ins = (after: number, ...lines: string[]): Edit => ({ op: 'ins', after, lines });

function applyEdits(base: string, edits: readonly Edit[]): string {
  const lines = base.split('\n');
  const pos = (e: Edit) => (e.op === 'ins' ? e.after + 0.5 : e.line);
  for (const e of [...edits].sort((a, b) => pos(b) - pos(a))) {
    if (e.op === 'ins') {
      lines.splice(e.after, 0, ...e.lines);
      continue;
    }
    const old = lines[e.line - 1];
    const must = e.op === 'sub' ? e.from : e.was;
    if (old === undefined || !old.includes(must)) {
      throw new Error(`test bug: base line ${e.line} (${JSON.stringify(old)}) does not contain ${must}`);
    }
    if (e.op === 'sub') lines[e.line - 1] = old.replace(e.from, e.to);
    else lines.splice(e.line - 1, 1, ...e.lines);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Expectations

interface Expected {
  rule: string;
  /** 1-based line in the edited text; null for diagnostics about a whole file that has no line. */
  line: number | null;
  /** Text that must stand on that line (at `column` when given): a check on the expectation itself. */
  at?: string;
  column?: number;
  message: RegExp;
  /** The path inside the document, when it matters to the variant. */
  path?: DocPath;
}

interface Variant {
  name: string;
  edits: Edit[];
  expect: Expected[];
}

const describeExpected = (file: string, e: Expected) =>
  `${file}:${e.line ?? '-'}:${e.column ?? '*'} [${e.rule}] ${e.message}${e.path ? ` at ${JSON.stringify(e.path)}` : ''}`;

function checkExpectation(text: string, e: Expected): void {
  if (e.line === null || e.at === undefined) return;
  const line = text.split('\n')[e.line - 1] ?? '';
  const ok = e.column !== undefined ? line.slice(e.column - 1).startsWith(e.at) : line.includes(e.at);
  if (!ok) {
    throw new Error(
      `test bug: line ${e.line}${e.column ? ` column ${e.column}` : ''} is ${JSON.stringify(line)}, expected ${JSON.stringify(e.at)} there`,
    );
  }
}

/** Asserts that the error diagnostics are exactly `expected` (in any order). */
function assertDiagnostics(
  diagnostics: readonly Diagnostic[],
  expected: readonly (Expected & { file: string })[],
): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const actual = errors.map(formatDiagnostic).join('\n') || '(none)';
  const unmatched = [...errors];
  const missing: string[] = [];
  for (const e of expected) {
    const i = unmatched.findIndex(
      (d) =>
        d.file === e.file &&
        d.rule === e.rule &&
        d.line === e.line &&
        (e.column === undefined || d.column === e.column) &&
        (e.path === undefined || JSON.stringify(d.path) === JSON.stringify(e.path)) &&
        e.message.test(d.message),
    );
    if (i < 0) missing.push(describeExpected(e.file, e));
    else unmatched.splice(i, 1);
  }
  expect(
    { missing, unexpected: unmatched.map(formatDiagnostic) },
    `expected diagnostics not matched; actual diagnostics:\n${actual}`,
  ).toEqual({ missing: [], unexpected: [] });
  // Every diagnostic with a line prints as file:line:col, the form editors and CI annotations read.
  for (const d of errors) {
    const printed = formatDiagnostic(d);
    if (d.line !== null)
      expect(printed.startsWith(`${d.file}:${d.line}:${d.column ?? 1}: error [`)).toBe(true);
    else expect(printed.startsWith(`${d.file}: error [`)).toBe(true);
  }
}

async function masterDiagnostics(text: string, name = 'master.yaml') {
  const file = writeYaml(tmpDir('infx-bad-'), name, text);
  const { diagnostics } = await loadMasterConfigs([file]);
  return { file, diagnostics };
}

async function runnerDiagnostics(text: string) {
  const file = writeYaml(tmpDir('infx-bad-'), 'runners.yaml', text);
  const { diagnostics } = await loadRunnerConfig(file);
  return { file, diagnostics };
}

// ---------------------------------------------------------------------------------------------------------
// Master-config variants (each a few literal lines changed in BASE_MASTER)

const UNKNOWN = 'key.unknown';
const MASTER_VARIANTS: Variant[] = [
  // Closed objects: an unknown key is reported at the key and the nearest valid key is suggested.
  {
    name: 'unknown key at the top level of an entry',
    edits: [ins(8, '  disag: false')],
    expect: [
      {
        rule: UNKNOWN,
        line: 9,
        column: 3,
        at: 'disag:',
        message: /unknown key 'disag'.*Did you mean 'disagg'\?/,
        path: ['dsr1-fp8-h200-sglang', 'disag'],
      },
    ],
  },
  {
    name: 'unknown key in a single-node search-space entry (flow mapping)',
    edits: [sub(15, 'ep: 1, ', 'ep: 1, dp-atn: false, ')],
    expect: [
      {
        rule: UNKNOWN,
        line: 15,
        column: 29,
        at: 'dp-atn',
        message: /unknown key 'dp-atn'.*Did you mean 'dp-attn'\?/,
      },
    ],
  },
  {
    name: 'unknown key in a decode worker',
    edits: [ins(69, '              num-workers: 2')],
    expect: [
      {
        rule: UNKNOWN,
        line: 70,
        column: 15,
        at: 'num-workers',
        message: /unknown key 'num-workers'.*Did you mean 'num-worker'\?/,
      },
    ],
  },
  {
    name: 'misspelt key in an agentic-coding item (dram-utilisation)',
    edits: [set(34, 'dram-utilization', '      - dram-utilisation: 0.5')],
    expect: [
      {
        rule: UNKNOWN,
        line: 34,
        column: 9,
        at: 'dram-utilisation',
        message: /unknown key 'dram-utilisation'.*Did you mean 'dram-utilization'\?/,
      },
      // With the real key gone, the dram entry also lacks its dram-utilization.
      {
        rule: 'agentic.dram-utilization-required',
        line: 37,
        at: 'kv-offloading: dram',
        message: /dram-utilization/,
      },
    ],
  },
  {
    name: 'unknown key in an agentic search-space entry',
    edits: [ins(41, '            spec-decode: mtp')],
    expect: [
      {
        rule: UNKNOWN,
        line: 42,
        column: 13,
        at: 'spec-decode',
        message: /unknown key 'spec-decode'.*Did you mean 'spec-decoding'\?/,
      },
    ],
  },

  // Concurrency (§2.6 C)
  {
    name: 'both conc-list and conc-start/conc-end',
    edits: [sub(23, 'conc-end: 32 }', 'conc-end: 32, conc-list: [1, 2] }')],
    expect: [
      { rule: 'conc.both', line: 23, at: 'conc-list', message: /Cannot specify both 'conc-list'.*not both/ },
    ],
  },
  {
    name: 'neither conc-list nor a full range (conc-end missing)',
    edits: [sub(23, ', conc-end: 32', '')],
    expect: [
      { rule: 'conc.neither', line: 23, at: 'conc-start: 1 }', message: /Must specify either 'conc-list'/ },
    ],
  },
  {
    name: 'conc-start greater than conc-end',
    edits: [sub(15, 'conc-start: 4, conc-end: 64', 'conc-start: 64, conc-end: 4')],
    expect: [
      {
        rule: 'conc.range-order',
        line: 15,
        at: 'conc-start: 64',
        message: /'conc-start' \(64\) must be <= 'conc-end' \(4\)/,
      },
    ],
  },
  {
    name: 'conc-start 0 (agentic entry)',
    edits: [sub(42, 'conc-start: 1', 'conc-start: 0')],
    expect: [
      { rule: 'conc.range-positive', line: 42, at: 'conc-start: 0', message: /must be greater than 0/ },
    ],
  },
  {
    name: 'conc-end negative',
    edits: [sub(23, 'conc-end: 32', 'conc-end: -1')],
    expect: [
      { rule: 'conc.range-positive', line: 23, at: 'conc-end: -1', message: /must be greater than 0/ },
    ],
  },
  {
    name: 'conc-list with a 0',
    edits: [sub(19, '[4, 8, 16]', '[4, 0, 16]')],
    expect: [
      {
        rule: 'conc.list-positive',
        line: 19,
        column: 28,
        at: '0, 16]',
        message: /'conc-list' entries must be greater than 0/,
        path: ['dsr1-fp8-h200-sglang', 'scenarios', 'fixed-seq-len', 0, 'search-space', 1, 'conc-list', 1],
      },
    ],
  },

  // Topology (§2.6 T) and strict positive ints
  {
    name: 'dcp-size does not divide tp (single-node entry)',
    edits: [sub(17, 'dcp-size: 2', 'dcp-size: 3')],
    expect: [
      {
        rule: 'topology.dcp-divides-tp',
        line: 17,
        at: 'dcp-size: 3',
        message: /'tp' \(8\) must be divisible by 'dcp-size' \(3\)/,
      },
    ],
  },
  {
    name: 'dcp-size does not divide tp (prefill worker)',
    edits: [ins(62, '              dcp-size: 3')],
    expect: [
      {
        rule: 'topology.dcp-divides-tp',
        line: 63,
        at: 'dcp-size: 3',
        message: /'tp' \(4\) must be divisible by 'dcp-size' \(3\)/,
      },
    ],
  },
  {
    name: 'dcp-size does not divide tp (agentic single-node entry)',
    edits: [ins(40, '            dcp-size: 3')],
    expect: [
      {
        rule: 'topology.dcp-divides-tp',
        line: 41,
        at: 'dcp-size: 3',
        message: /'tp' \(4\) must be divisible by 'dcp-size' \(3\)/,
      },
    ],
  },
  {
    name: 'pp: 0 in a single-node entry',
    edits: [ins(16, '            pp: 0')],
    expect: [{ rule: 'value.range', line: 17, column: 17, at: '0', message: /'pp' must be greater than 0/ }],
  },
  {
    name: 'dcp-size: 0 in a decode worker',
    edits: [ins(70, '              dcp-size: 0')],
    expect: [
      { rule: 'value.range', line: 71, column: 25, at: '0', message: /'dcp-size' must be greater than 0/ },
    ],
  },
  {
    name: 'pcp-size: 0 in an agentic single-node entry',
    edits: [ins(40, '            pcp-size: 0')],
    expect: [
      { rule: 'value.range', line: 41, column: 23, at: '0', message: /'pcp-size' must be greater than 0/ },
    ],
  },

  // disagg / kv-p2p-transfer / router scope (§2.1, §2.6 S)
  {
    name: 'disagg: true on a single-node config',
    edits: [ins(9, '  disagg: true')],
    expect: [
      {
        rule: 'value.enum',
        line: 10,
        column: 11,
        at: 'true',
        message: /disagg.*multinode: true/,
        path: ['dsr1-fp8-h200-sglang', 'disagg'],
      },
    ],
  },
  {
    name: 'top-level kv-p2p-transfer on a single-node config',
    edits: [ins(9, '  kv-p2p-transfer: nixl')],
    expect: [
      {
        rule: UNKNOWN,
        line: 10,
        column: 3,
        at: 'kv-p2p-transfer',
        message: /'kv-p2p-transfer'.*only valid when multinode=true/,
      },
    ],
  },
  {
    name: 'kv-p2p-transfer in an agentic entry of a single-node config',
    edits: [ins(41, '            kv-p2p-transfer: nixl')],
    expect: [
      {
        rule: 'scope.kv-p2p-transfer-multinode',
        line: 42,
        at: 'kv-p2p-transfer: nixl',
        message: /kv-p2p-transfer is only valid when multinode=true/,
      },
    ],
  },
  {
    name: 'disagg: true with kv-p2p-transfer on only one of two search-space entries',
    edits: [del(53, 'kv-p2p-transfer: nixl'), ins(59, '            kv-p2p-transfer: nixl')],
    expect: [
      {
        rule: 'disagg.kv-p2p-transfer',
        line: 76,
        at: '- conc-list: [1, 4]',
        message: /disagg=true requires kv-p2p-transfer at the top level or in every search-space entry/,
      },
    ],
  },
  {
    name: 'disagg: true without any kv-p2p-transfer (reported at the first entry that lacks it)',
    edits: [del(53, 'kv-p2p-transfer: nixl')],
    expect: [
      {
        rule: 'disagg.kv-p2p-transfer',
        line: 58,
        at: '- conc-list: [2150]',
        message: /disagg=true requires kv-p2p-transfer/,
      },
    ],
  },
  {
    name: 'router declared at the top level and in a search-space entry',
    edits: [
      ins(53, '  router: { name: dynamo-router, version: "0.5.1" }'),
      ins(59, '            router: { name: dynamo-router, version: "0.5.1" }'),
    ],
    expect: [
      {
        rule: 'scope.router',
        line: 61,
        at: 'router:',
        message: /router must be declared either at the top level or in search-space entries, not both/,
      },
    ],
  },
  {
    name: 'kv-p2p-transfer declared at the top level and in a search-space entry',
    edits: [ins(59, '            kv-p2p-transfer: mooncake')],
    expect: [
      {
        rule: 'scope.kv-p2p-transfer',
        line: 60,
        at: 'kv-p2p-transfer: mooncake',
        message:
          /kv-p2p-transfer must be declared either at the top level or in search-space entries, not both/,
      },
    ],
  },
  {
    name: 'prefill.hardware without decode.hardware (reported at decode)',
    edits: [del(73, 'hardware: gb200')],
    expect: [
      {
        rule: 'hardware.pair',
        line: 68,
        at: 'decode:',
        message: /'hardware' must be specified for both 'prefill' and 'decode', or neither/,
      },
    ],
  },

  // Agentic rules (§2.4, §2.6 A)
  {
    name: 'agentic config on a runner that is not cluster:<name>',
    edits: [sub(30, 'cluster:b300-nv', 'b300')],
    expect: [
      {
        rule: 'agentic.cluster-runner',
        line: 30,
        column: 11,
        at: 'b300',
        message: /must use a 'cluster:<name>' runner.*'b300'/,
      },
    ],
  },
  {
    name: 'agentic single-node entry without kv-offloading',
    edits: [del(41, 'kv-offloading: none')],
    expect: [
      {
        rule: 'agentic.kv-offloading-required',
        line: 40,
        at: '- tp: 4',
        message: /must specify kv-offloading/,
      },
    ],
  },
  {
    name: 'agentic entry with both tp and prefill workers',
    edits: [ins(39, '            prefill: { num-worker: 1, tp: 8, ep: 1, dp-attn: false }')],
    expect: [
      {
        rule: 'agentic.shape',
        line: 36,
        at: '- tp: 8',
        message: /must specify either tp or both prefill and decode/,
      },
      // The port's extra check (entry shape vs multinode) also fires; it is about the same line.
      {
        rule: 'agentic.shape-mismatch',
        line: 36,
        at: '- tp: 8',
        message: /multinode: false config has a multi-node/,
      },
    ],
  },
  {
    name: 'kv-offload-backend with kv-offloading: none',
    edits: [ins(41, '            kv-offload-backend: { name: lmcache }')],
    expect: [
      {
        rule: 'kvoffload.backend-with-none',
        line: 42,
        at: 'kv-offload-backend',
        message: /kv-offload-backend can only be set when kv-offloading is not 'none'/,
      },
    ],
  },
  {
    name: 'kv-offloading: dram without kv-offload-backend',
    edits: [del(38, 'kv-offload-backend')],
    expect: [
      {
        rule: 'kvoffload.backend-required',
        line: 37,
        at: 'kv-offloading: dram',
        message: /kv-offload-backend is required when kv-offloading is 'dram'/,
      },
    ],
  },
  {
    name: 'kv-offload-backend without kv-offloading (multinode agentic entry)',
    edits: [ins(76, '            kv-offload-backend: { name: mooncake }')],
    expect: [
      {
        rule: 'kvoffload.backend-requires-offload',
        line: 77,
        at: 'kv-offload-backend',
        message: /kv-offload-backend requires kv-offloading/,
      },
    ],
  },
  {
    name: 'kv-offloading: dram without dram-utilization',
    edits: [set(34, 'dram-utilization', '      - search-space:'), del(35, 'search-space:')],
    expect: [
      {
        rule: 'agentic.dram-utilization-required',
        line: 36,
        at: 'kv-offloading: dram',
        message: /kv-offloading='dram' requires dram-utilization/,
      },
    ],
  },
  {
    name: 'dram-utilization above 1',
    edits: [sub(34, '0.5', '1.5')],
    expect: [
      {
        rule: 'value.range',
        line: 34,
        column: 27,
        at: '1.5',
        message: /'dram-utilization' must be less than or equal to 1/,
      },
    ],
  },
  {
    name: 'dram-utilization of 0',
    edits: [sub(34, '0.5', '0')],
    expect: [
      {
        rule: 'value.range',
        line: 34,
        column: 27,
        at: '0',
        message: /'dram-utilization' must be greater than 0/,
      },
    ],
  },
  {
    name: 'trace-source in an agentic-coding item',
    edits: [ins(34, '        trace-source: swe-bench')],
    expect: [
      {
        rule: UNKNOWN,
        line: 35,
        column: 9,
        at: 'trace-source',
        message: /'trace-source' is not allowed here/,
      },
    ],
  },
  {
    name: 'duration in an agentic-coding item',
    edits: [ins(34, '        duration: 1800')],
    expect: [
      { rule: UNKNOWN, line: 35, column: 9, at: 'duration', message: /'duration' is not allowed here/ },
    ],
  },
  {
    name: 'total-cpu-dram-gb in an agentic search-space entry',
    edits: [ins(37, '            total-cpu-dram-gb: 512')],
    expect: [
      {
        rule: UNKNOWN,
        line: 38,
        column: 13,
        at: 'total-cpu-dram-gb',
        message: /'total-cpu-dram-gb' is not allowed here/,
      },
    ],
  },
  {
    name: 'multinode agentic entry that sets pp (even pp: 1)',
    edits: [ins(76, '            pp: 1')],
    expect: [
      {
        rule: 'agentic.multinode-topology-fields',
        line: 77,
        at: 'pp: 1',
        message: /Multinode agentic search-space entries cannot specify 'pp'/,
      },
    ],
  },

  // Component metadata (§2.5) and enums
  {
    name: 'router version that is an image reference',
    edits: [ins(8, '  router: { name: sglang-router, version: "image:lmsysorg/sglang-router:0.2.1" }')],
    expect: [
      { rule: 'component.image-version', line: 9, at: 'image:lmsysorg', message: /not an image reference/ },
    ],
  },
  {
    name: 'kv-offload-backend version that is an image reference',
    edits: [sub(38, '"0.3.9"', '"image:lmcache/vllm-openai:v0.3.9"')],
    expect: [
      { rule: 'component.image-version', line: 38, at: 'image:lmcache', message: /not an image reference/ },
    ],
  },
  {
    name: 'spec-decoding not in the enum',
    edits: [sub(18, 'mtp', 'eagle')],
    expect: [
      {
        rule: 'value.enum',
        line: 18,
        column: 28,
        at: 'eagle',
        message: /'spec-decoding' must be one of mtp, draft_model, none.*eagle/,
      },
    ],
  },

  // Wrong types
  {
    name: 'tp: "8" (a string)',
    edits: [sub(16, 'tp: 8', 'tp: "8"')],
    expect: [
      {
        rule: 'value.type',
        line: 16,
        column: 17,
        at: '"8"',
        message: /'tp' expected an integer, got str '8'/,
      },
    ],
  },
  {
    name: 'dp-attn: "yes" (a string)',
    edits: [sub(64, 'dp-attn: true', 'dp-attn: "yes"')],
    expect: [
      {
        rule: 'value.type',
        line: 64,
        column: 24,
        at: '"yes"',
        message: /'dp-attn' expected true or false, got str 'yes'/,
      },
    ],
  },
  {
    name: 'conc-list: 5 (not a list)',
    edits: [sub(19, '[4, 8, 16]', '5')],
    expect: [
      {
        rule: 'value.type',
        line: 19,
        column: 24,
        at: '5',
        message: /'conc-list' expected a list, got int 5/,
      },
    ],
  },

  // Missing required keys (reported at the key of the mapping that lacks them)
  {
    name: 'missing model',
    edits: [del(4, 'model: deepseek-ai')],
    expect: [
      {
        rule: 'key.required',
        line: 2,
        at: 'dsr1-fp8-h200-sglang:',
        message: /required key 'model' is missing/,
        path: ['dsr1-fp8-h200-sglang', 'model'],
      },
    ],
  },
  {
    name: 'missing multinode',
    edits: [del(31, 'multinode: false')],
    expect: [
      {
        rule: 'key.required',
        line: 24,
        at: 'dsr1-fp4-b300-vllm-agentic:',
        message: /required key 'multinode' is missing/,
      },
    ],
  },
  {
    name: 'no scenarios (fixed-seq-len: [])',
    edits: [
      set(11, 'fixed-seq-len:', '    fixed-seq-len: []'),
      ...Array.from({ length: 12 }, (_, i) => del(12 + i, '')),
    ],
    expect: [
      {
        rule: 'scenarios.none',
        line: 10,
        at: 'scenarios:',
        message: /At least one scenario type must be specified/,
      },
    ],
  },

  // Loader-level problems inside one file
  {
    name: "a '*' in a config key",
    edits: [sub(2, 'h200', '*')],
    expect: [
      {
        rule: 'key.wildcard',
        line: 2,
        column: 1,
        at: 'dsr1-fp8-*-sglang',
        message: /Wildcard '\*' is not allowed in master config keys: 'dsr1-fp8-\*-sglang'/,
      },
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------
// runners.yaml variants (each a few literal lines changed in BASE_RUNNERS)

const RUNNER_VARIANTS: Variant[] = [
  {
    name: 'label whose value is a string, not a list',
    edits: [sub(4, '[gb200-nv_0]', 'gb200-nv_0')],
    expect: [
      {
        rule: 'value.type',
        line: 4,
        column: 10,
        at: 'gb200-nv_0',
        message: /'gb200'.*must be a list.*got str/,
        path: ['labels', 'gb200'],
      },
    ],
  },
  {
    name: 'label list with a non-string node',
    edits: [sub(3, 'h200-nb_0', '123')],
    expect: [
      {
        rule: 'value.type',
        line: 3,
        column: 32,
        at: '123',
        message: /must contain only strings/,
        path: ['labels', 'h200', 2],
      },
    ],
  },
  {
    name: 'label with an empty list',
    edits: [sub(4, '[gb200-nv_0]', '[]')],
    expect: [
      { rule: 'value.range', line: 4, column: 3, at: 'gb200:', message: /'gb200'.*cannot be an empty list/ },
    ],
  },
  {
    name: 'no labels mapping (legacy flat file)',
    edits: [del(2, 'labels:'), ...[3, 4, 5, 6, 7, 8].map((l) => sub(l, '  ', ''))],
    expect: [
      { rule: 'runners.labels-mapping', line: 2, at: 'h200:', message: /must define a labels mapping/ },
    ],
  },
  {
    name: 'labels is a list, not a mapping',
    edits: [sub(2, 'labels:', 'labels: [h200, gb200]'), ...[3, 4, 5, 6, 7, 8].map((l) => del(l, ''))],
    expect: [
      {
        rule: 'runners.labels-mapping',
        line: 2,
        at: '[h200, gb200]',
        message: /must define a labels mapping/,
      },
    ],
  },
  {
    name: 'hardware gpus-per-node: 0',
    edits: [sub(13, 'gpus-per-node: 4', 'gpus-per-node: 0')],
    expect: [
      {
        rule: 'value.range',
        line: 13,
        column: 71,
        at: '0 }',
        message: /'gpus-per-node' must be greater than 0/,
      },
    ],
  },
  {
    name: 'hardware entry missing available-cpu-dram-mib',
    edits: [del(11, 'available-cpu-dram-mib')],
    expect: [
      {
        rule: 'key.required',
        line: 10,
        at: 'cluster:b300-nv:',
        message: /required key 'available-cpu-dram-mib' is missing/,
      },
    ],
  },
  {
    name: 'unknown top-level key in runners.yaml',
    edits: [ins(13, 'hardwares: {}')],
    expect: [{ rule: UNKNOWN, line: 14, column: 1, at: 'hardwares', message: /Did you mean 'hardware'\?/ }],
  },
];

// ---------------------------------------------------------------------------------------------------------

describe('bad configs: the valid base', () => {
  it('the base master config and runners.yaml yield no diagnostics', async () => {
    const master = await masterDiagnostics(BASE_MASTER);
    expect(master.diagnostics.map(formatDiagnostic)).toEqual([]);
    const runners = await runnerDiagnostics(BASE_RUNNERS);
    expect(runners.diagnostics.map(formatDiagnostic)).toEqual([]);
  });

  it('the base generates a matrix through the CLI (so the variants start from a usable config)', async () => {
    const dir = tmpDir('infx-bad-');
    const config = writeYaml(dir, 'master.yaml', BASE_MASTER);
    const runners = writeYaml(dir, 'runners.yaml', BASE_RUNNERS);
    const r = await runCli([
      'matrix',
      'full-sweep',
      '--no-cache',
      '--config-files',
      config,
      '--runner-config',
      runners,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
  });

  it('every edit in the tables applies to the base it names', () => {
    for (const v of MASTER_VARIANTS)
      for (const e of v.expect) checkExpectation(applyEdits(BASE_MASTER, v.edits), e);
    for (const v of RUNNER_VARIANTS)
      for (const e of v.expect) checkExpectation(applyEdits(BASE_RUNNERS, v.edits), e);
  });
});

describe('bad master configs', () => {
  it.each(MASTER_VARIANTS.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    const text = applyEdits(BASE_MASTER, v.edits);
    for (const e of v.expect) checkExpectation(text, e);
    const { file, diagnostics } = await masterDiagnostics(text);
    assertDiagnostics(
      diagnostics,
      v.expect.map((e) => ({ ...e, file })),
    );
  });
});

describe('bad runners.yaml', () => {
  it.each(RUNNER_VARIANTS.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    const text = applyEdits(BASE_RUNNERS, v.edits);
    for (const e of v.expect) checkExpectation(text, e);
    const { file, diagnostics } = await runnerDiagnostics(text);
    assertDiagnostics(
      diagnostics,
      v.expect.map((e) => ({ ...e, file })),
    );
  });

  it('a missing runners.yaml', async () => {
    const file = join(tmpDir('infx-bad-'), 'absent-runners.yaml');
    const { diagnostics } = await loadRunnerConfig(file);
    assertDiagnostics(diagnostics, [
      {
        file,
        rule: 'file.missing',
        line: null,
        message: /Runner config file '.*absent-runners\.yaml' does not exist/,
      },
    ]);
  });
});

describe('bad master files (whole-file problems)', () => {
  it('duplicate YAML keys: every duplicate is reported at its own line', async () => {
    const text = applyEdits(BASE_MASTER, [
      ins(6, '  precision: fp4'), // → line 7 (model config 1)
      sub(23, 'conc-start: 1, ', 'conc-start: 1, tp: 8, '), // → line 24, flow mapping
      ins(71, '              ep: 4'), // → line 73 (decode worker)
      // → line 81: the whole first config key again, as a complete (valid) one-line entry
      ins(
        78,
        'dsr1-fp8-h200-sglang: { image: x, model: m, model-prefix: dsr1, precision: fp8, framework: sglang, runner: h200, multinode: false, scenarios: { fixed-seq-len: [{ isl: 1024, osl: 1024, search-space: [{ tp: 8, conc-list: [4] }] }] } }',
      ),
    ]);
    const lines = text.split('\n');
    expect(lines[6]).toBe('  precision: fp4');
    expect(lines[23]).toContain('tp: 8, conc-end');
    expect(lines[72]).toBe('              ep: 4');
    expect(lines[80]?.startsWith('dsr1-fp8-h200-sglang: {')).toBe(true);
    expect(lines[23]?.slice(36).startsWith('tp: 8')).toBe(true);
    const { file, diagnostics } = await masterDiagnostics(text);
    const dup = (line: number, column: number, key: string, first: number) => ({
      file,
      rule: 'yaml.duplicate-key',
      line,
      column,
      message: new RegExp(`duplicate key '${key}' \\(first defined at line ${first}\\)`),
    });
    assertDiagnostics(diagnostics, [
      dup(7, 3, 'precision', 6),
      dup(24, 37, 'tp', 24),
      dup(73, 15, 'ep', 72),
      dup(81, 1, 'dsr1-fp8-h200-sglang', 2),
    ]);
  });

  it('the same config key in two files is reported in the later file, at the key', async () => {
    const dir = tmpDir('infx-bad-');
    const first = writeYaml(dir, 'amd-master.yaml', BASE_MASTER);
    const secondText = `# a second master file
other-fp8-mi300x-sglang:
  image: lmsysorg/sglang:v0.5.5-rocm
  model: other/Model
  model-prefix: other
  precision: fp8
  framework: sglang
  runner: mi300x
  multinode: false
  scenarios:
    fixed-seq-len:
      - { isl: 1024, osl: 1024, search-space: [{ tp: 8, conc-list: [4] }] }
dsr1-fp4-b300-vllm-agentic:
  image: vllm/vllm-openai:v0.11.0
  model: nvidia/DeepSeek-R1-FP4
  model-prefix: dsr1
  precision: fp4
  framework: vllm
  runner: cluster:b300-nv
  multinode: false
  scenarios:
    fixed-seq-len:
      - { isl: 1024, osl: 1024, search-space: [{ tp: 8, conc-list: [4] }] }
`;
    const second = writeYaml(dir, 'nvidia-master.yaml', secondText);
    const { diagnostics } = await loadMasterConfigs([first, second]);
    assertDiagnostics(diagnostics, [
      {
        file: second,
        rule: 'key.duplicate-across-files',
        line: 13,
        column: 1,
        message:
          /Duplicate configuration keys found in '.*nvidia-master\.yaml': dsr1-fp4-b300-vllm-agentic.*amd-master\.yaml/,
      },
    ]);
  });

  it('a YAML syntax error is reported at the offending line', async () => {
    // Line 7 is indented by three spaces instead of two.
    const text = applyEdits(BASE_MASTER, [sub(7, '  framework', '   framework')]);
    const { file, diagnostics } = await masterDiagnostics(text);
    assertDiagnostics(diagnostics, [
      { file, rule: 'yaml.syntax', line: 7, message: /invalid YAML: bad indentation/ },
    ]);
  });

  it('an unclosed flow mapping is a syntax error reported at or after its line', async () => {
    const text = applyEdits(BASE_MASTER, [sub(15, 'conc-end: 64 }', 'conc-end: 64')]);
    const { file, diagnostics } = await masterDiagnostics(text);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.file, d.rule])).toEqual([[file, 'yaml.syntax']]);
    expect(errors[0]?.line).toBeGreaterThanOrEqual(15);
    expect(errors[0]?.message).toMatch(/invalid YAML/);
  });

  it('a file that is a list, not a mapping', async () => {
    const text = '- dsr1-fp8-h200-sglang\n- dsr1-fp4-gb200-dynamo-trt\n';
    const { file, diagnostics } = await masterDiagnostics(text);
    assertDiagnostics(diagnostics, [
      { file, rule: 'file.not-mapping', line: 1, column: 1, message: /must contain a dictionary/ },
    ]);
  });

  it('a missing master file', async () => {
    const file = join(tmpDir('infx-bad-'), 'absent-master.yaml');
    const { diagnostics } = await loadMasterConfigs([file]);
    assertDiagnostics(diagnostics, [
      {
        file,
        rule: 'file.missing',
        line: null,
        message: /Input file '.*absent-master\.yaml' does not exist/,
      },
    ]);
  });

  it('three independent errors in three different entries are all reported in one run', async () => {
    const text = applyEdits(BASE_MASTER, [
      sub(17, 'dcp-size: 2', 'dcp-size: 3'), // entry 1: topology
      del(41, 'kv-offloading: none'), // entry 2: agentic kv-offloading
      ins(59, '            spec-decoding: eagle'), // entry 3: enum (line 59 after the deletion above)
    ]);
    const { file, diagnostics } = await masterDiagnostics(text);
    assertDiagnostics(diagnostics, [
      {
        file,
        rule: 'topology.dcp-divides-tp',
        line: 17,
        message: /'tp' \(8\) must be divisible by 'dcp-size' \(3\)/,
      },
      { file, rule: 'agentic.kv-offloading-required', line: 40, message: /kv-offloading/ },
      { file, rule: 'value.enum', line: 59, column: 28, message: /'spec-decoding' must be one of .*eagle/ },
    ]);
    expect(text.split('\n')[58]).toBe('            spec-decoding: eagle');
    const keys = new Set(diagnostics.map((d) => d.path[0]));
    expect(keys).toEqual(
      new Set(['dsr1-fp8-h200-sglang', 'dsr1-fp4-b300-vllm-agentic', 'dsr1-fp4-gb200-dynamo-trt']),
    );
  });
});

describe('the CLI on broken files', () => {
  const LOCATED = /^(.+):(\d+):(\d+): error \[([a-z0-9.-]+)\] /;

  it('infx matrix full-sweep exits 1 and prints file:line:col for every problem', async () => {
    const dir = tmpDir('infx-bad-');
    const config = writeYaml(
      dir,
      'master.yaml',
      applyEdits(BASE_MASTER, [
        sub(15, 'conc-start: 4, conc-end: 64', 'conc-start: 64, conc-end: 4'),
        sub(30, 'cluster:b300-nv', 'b300'),
      ]),
    );
    const runners = writeYaml(dir, 'runners.yaml', applyEdits(BASE_RUNNERS, [sub(4, '[gb200-nv_0]', '[]')]));
    const r = await runCli([
      'matrix',
      'full-sweep',
      '--no-cache',
      '--config-files',
      config,
      '--runner-config',
      runners,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const located = r.stderr
      .split('\n')
      .map((l) => LOCATED.exec(l))
      .filter((m) => m !== null)
      .map((m) => `${m[1]}:${m[2]}:${m[3]} ${m[4]}`);
    expect(located).toEqual([
      `${config}:15:41 conc.range-order`,
      `${config}:30:11 agentic.cluster-runner`,
      `${runners}:4:3 value.range`,
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('infx validate exits 1 and prints file:line:col for every problem (text and json)', async () => {
    const dir = tmpDir('infx-bad-');
    const config = writeYaml(
      dir,
      'master.yaml',
      applyEdits(BASE_MASTER, [
        sub(15, 'conc-start: 4, conc-end: 64', 'conc-start: 64, conc-end: 4'),
        sub(30, 'cluster:b300-nv', 'b300'),
      ]),
    );
    const runners = writeYaml(dir, 'runners.yaml', applyEdits(BASE_RUNNERS, [sub(4, '[gb200-nv_0]', '[]')]));
    const r = await runCli(['validate', '--config-files', config, '--runner-config', runners]);
    expect(r.stderr).not.toMatch(/unknown command/);
    expect(r.code).toBe(1);
    const located = r.stderr
      .split('\n')
      .map((l) => LOCATED.exec(l))
      .filter((m) => m !== null)
      .map((m) => `${m[1]}:${m[2]}:${m[3]} ${m[4]}`);
    expect(located).toEqual([
      `${config}:15:41 conc.range-order`,
      `${config}:30:11 agentic.cluster-runner`,
      `${runners}:4:3 value.range`,
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at /);

    const j = await runCli([
      'validate',
      '--format',
      'json',
      '--config-files',
      config,
      '--runner-config',
      runners,
    ]);
    expect(j.code).toBe(1);
    const out = JSON.parse(j.stdout) as { valid: boolean; diagnostics: Diagnostic[] };
    expect(out.valid).toBe(false);
    expect(
      out.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.file, d.line, d.rule]),
    ).toEqual([
      [config, 15, 'conc.range-order'],
      [config, 30, 'agentic.cluster-runner'],
      [runners, 4, 'value.range'],
    ]);
  });

  it('infx matrix full-sweep on a missing config file exits 1 and names the file', async () => {
    const dir = tmpDir('infx-bad-');
    const runners = writeYaml(dir, 'runners.yaml', BASE_RUNNERS);
    const missing = join(dir, 'nope.yaml');
    const r = await runCli([
      'matrix',
      'full-sweep',
      '--no-cache',
      '--config-files',
      missing,
      '--runner-config',
      runners,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${missing}: error [file.missing]`);
  });
});
