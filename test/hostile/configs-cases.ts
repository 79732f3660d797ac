/**
 * Hostile and broken config inputs (issue 13, the config/check part): a valid base, and a table of bad
 * variants, each with the rule it must be refused with and where. Files are generated at test time (the big
 * ones included), never committed.
 */

/** A valid single-node master config: validate, matrix and check all exit 0 on it. */
export const BASE = `dsr1-fp8-h200-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  precision: fp8
  framework: vllm
  runner: h200
  multinode: false
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - { tp: 8, ep: 1, conc-start: 4, conc-end: 64 }
`;

/** A valid multi-node (disaggregated) master config. */
export const BASE_MULTI = `dsr1-fp4-gb200-dynamo-trt:
  image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.5.1
  model: nvidia/DeepSeek-R1-FP4
  model-prefix: dsr1
  precision: fp4
  framework: dynamo-trt
  runner: gb200
  multinode: true
  disagg: true
  kv-p2p-transfer: nixl
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - conc-list: [64]
            prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: false }
            decode: { num-worker: 1, tp: 8, ep: 8, dp-attn: false }
`;

export const BASE_RUNNERS = `labels:
  h200: [h200-cw_0, h200-cw_1]
  gb200: [gb200-nv_0, gb200-nv_1]
hardware:
  gb200: { available-cpu-dram-mib: 860_160, gpus-per-node: 4 }
`;

export type Command = 'validate' | 'full-sweep' | 'test-config' | 'check';
export const ALL: readonly Command[] = ['validate', 'full-sweep', 'test-config', 'check'];

/** What a case's file is made of; a function is called once the temp dir exists. */
export type Content =
  | string
  | Buffer
  | { kind: 'dir' }
  | { kind: 'fifo' }
  | { kind: 'sparse'; bytes: number }
  | { kind: 'symlink-loop' }
  | { kind: 'dangling-symlink' }
  | { kind: 'through-file' }
  | { kind: 'path'; path: string }
  | { kind: 'unreadable'; text: string };

export interface Case {
  name: string;
  content: Content;
  /** Which input is bad: the master config (default) or the runner config. */
  role?: 'master' | 'runners';
  /** The master config to pair a bad runner config with, or the runners to pair a bad master with. */
  partner?: string;
  /** The rule id that must be printed. */
  rule: string;
  /**
   * Where it must point: a text the offending line contains (its first occurrence), a line number, or null
   * when only the file can be named.
   */
  at?: string | number | null;
  /** Column (1-based) where one is certain. */
  column?: number;
  /** Something the message must say. */
  says?: RegExp;
  commands?: readonly Command[];
}

/** The base with one text replaced (which must occur in it). */
export function edit(base: string, from: string, to: string): string {
  if (!base.includes(from)) throw new Error(`test bug: '${from}' is not in the base`);
  return base.replace(from, to);
}

const entryLine = '          - { tp: 8, ep: 1, conc-start: 4, conc-end: 64 }';
const withEntry = (line: string) => edit(BASE, entryLine, line);
const nested = (open: string, n: number) => `k: ${open.repeat(n)}\n`;

function utf16be(text: string): Buffer {
  const le = Buffer.from(text, 'utf16le');
  for (let i = 0; i + 1 < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return le;
}

function utf32le(text: string): Buffer {
  const out = Buffer.alloc((text.length + 1) * 4);
  out.writeUInt32LE(0xfeff, 0);
  for (let i = 0; i < text.length; i++) out.writeUInt32LE(text.charCodeAt(i), (i + 1) * 4);
  return out;
}

/** BASE with the bytes of `bad` in place of `from` (which stays a valid-UTF-8 prefix up to there). */
function withBytes(from: string, before: string, bad: number[], after: string): Buffer {
  const i = BASE.indexOf(from);
  if (i < 0) throw new Error(`test bug: '${from}' is not in the base`);
  return Buffer.concat([
    Buffer.from(BASE.slice(0, i) + before),
    Buffer.from(bad),
    Buffer.from(after + BASE.slice(i + from.length)),
  ]);
}

function aliases(n: number): string {
  const lines = ['anchors: &a [1, 2, 3]', 'k:'];
  for (let i = 0; i < n; i++) lines.push('  - *a');
  return `${lines.join('\n')}\n`;
}

function billionLaughs(): string {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i <= 9; i++) {
    const refs = Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ');
    lines.push(`a${i}: &a${i} [${refs}]`);
  }
  return `${lines.join('\n')}\n`;
}

/** One entry with `n` search-space entries, one flow mapping each. */
export function searchSpace(n: number): string {
  const head = edit(BASE, `${entryLine}\n`, '');
  return head + '          - { tp: 8, conc-list: [4] }\n'.repeat(n);
}

/** Keys whose conc-lists together expand to more rows than one invocation generates. */
function manyRows(): string {
  const list = `[${Array.from({ length: 1_000 }, (_, i) => i + 1).join(', ')}]`;
  return searchSpace(0) + `          - { tp: 8, conc-list: ${list} }\n`.repeat(101);
}

const mn = (from: string, to: string) => edit(BASE_MULTI, from, to);

export const CASES: readonly Case[] = [
  // --- What the file is (items 8, 11) ---
  { name: 'a directory', content: { kind: 'dir' }, rule: 'file.not-regular', at: null, says: /directory/ },
  { name: 'a FIFO', content: { kind: 'fifo' }, rule: 'file.not-regular', at: null, says: /FIFO/ },
  {
    name: '/dev/zero',
    content: { kind: 'path', path: '/dev/zero' },
    rule: 'file.not-regular',
    at: null,
    says: /character device/,
  },
  { name: '/dev/null', content: { kind: 'path', path: '/dev/null' }, rule: 'file.not-regular', at: null },
  {
    name: 'a 65 MiB file',
    content: { kind: 'sparse', bytes: 65 * 1024 * 1024 },
    rule: 'file.too-large',
    at: null,
    says: /64 MiB/,
  },
  {
    name: 'a symlink loop',
    content: { kind: 'symlink-loop' },
    rule: 'file.unreadable',
    at: null,
    says: /symbolic links/,
  },
  { name: 'a dangling symlink', content: { kind: 'dangling-symlink' }, rule: 'file.missing', at: null },
  { name: 'a path through a file', content: { kind: 'through-file' }, rule: 'file.missing', at: null },
  {
    name: 'an unreadable file',
    content: { kind: 'unreadable', text: BASE },
    rule: 'file.unreadable',
    at: null,
    says: /permission denied/,
  },
  { name: 'an empty file', content: '', rule: 'file.not-mapping', at: 1 },
  { name: 'only comments', content: '# nothing\n# here\n', rule: 'file.not-mapping', at: 1 },
  { name: 'a top-level list', content: '- a\n- b\n', rule: 'file.not-mapping', at: 1 },
  { name: 'a top-level scalar', content: 'hello\n', rule: 'file.not-mapping', at: 1 },
  {
    name: 'runners.yaml as a master config',
    content: BASE_RUNNERS,
    rule: 'file.is-runner-config',
    at: 'labels:',
    says: /--runner-config/,
  },
  // --- Encoding (item 16) ---
  {
    name: 'UTF-16 LE with a BOM',
    content: Buffer.from(`\ufeff${BASE}`, 'utf16le'),
    rule: 'file.encoding',
    at: 1,
    says: /UTF-16 \(little-endian/,
  },
  {
    name: 'UTF-16 BE with a BOM',
    content: utf16be(`\ufeff${BASE}`),
    rule: 'file.encoding',
    at: 1,
    says: /UTF-16 \(big-endian/,
  },
  {
    name: 'UTF-16 LE without a BOM',
    content: Buffer.from(BASE, 'utf16le'),
    rule: 'file.encoding',
    at: 1,
    says: /NUL after every/,
  },
  {
    name: 'UTF-16 BE without a BOM',
    content: utf16be(BASE),
    rule: 'file.encoding',
    at: 1,
    says: /NUL before every/,
  },
  { name: 'UTF-32 with a BOM', content: utf32le(BASE), rule: 'file.encoding', at: 1, says: /UTF-32/ },
  {
    name: 'a 0xFF byte in a value',
    content: withBytes('dsr1\n', 'ds', [0xff], 'r1\n'),
    rule: 'file.encoding',
    at: 4,
    column: 19,
    says: /byte 0xFF/,
  },
  {
    name: 'Latin-1 é in a comment',
    content: withBytes('  image:', '  # caf', [0xe9], '\n  image:'),
    rule: 'file.encoding',
    at: 2,
    column: 8,
    says: /0xE9/,
  },
  {
    name: 'an overlong encoding',
    content: withBytes('dsr1\n', 'ds', [0xc0, 0xaf], 'r1\n'),
    rule: 'file.encoding',
    at: 4,
    column: 19,
    says: /0xC0/,
  },
  {
    name: 'a lone continuation byte',
    content: withBytes('dsr1\n', 'ds', [0x80], 'r1\n'),
    rule: 'file.encoding',
    at: 4,
    column: 19,
    says: /continuation/,
  },
  {
    name: 'an encoded surrogate',
    content: withBytes('dsr1\n', 'ds', [0xed, 0xa0, 0x80], 'r1\n'),
    rule: 'file.encoding',
    at: 4,
    column: 19,
    says: /surrogate/,
  },
  {
    name: 'a character cut off at the end',
    content: Buffer.concat([Buffer.from(BASE), Buffer.from([0xe2, 0x82])]),
    rule: 'file.encoding',
    at: 15,
    says: /cuts off/,
  },
  {
    name: 'invalid UTF-8 after multibyte text',
    content: withBytes('dsr1\n', 'dś', [0xfe], 'r1\n'),
    rule: 'file.encoding',
    at: 4,
    column: 19,
  },
  {
    name: 'a NUL byte',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: ds\u0000r1'),
    rule: 'file.encoding',
    at: 4,
    column: 19,
    says: /NUL/,
  },
  // --- YAML bombs (items 8, 11) ---
  { name: '20,000 nested [', content: nested('[', 20_000), rule: 'yaml.too-deep', at: 1 },
  { name: '20,000 nested {', content: nested('{a: ', 20_000), rule: 'yaml.too-deep', at: 1 },
  {
    name: '100 nested block mappings',
    content: `${Array.from({ length: 100 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n')} 1\n`,
    rule: 'yaml.too-deep',
    at: 64,
  },
  { name: '100k aliases', content: aliases(100_000), rule: 'yaml.too-many-aliases', at: 10_003 },
  { name: 'a billion laughs', content: billionLaughs(), rule: 'yaml.too-large', at: null, says: /alias/ },
  { name: '600k list items', content: `k: [${'1,'.repeat(600_000)}1]\n`, rule: 'yaml.too-large', at: 1 },
  {
    name: 'a 100k-character scalar',
    content: edit(BASE, 'vllm/vllm-openai:v0.11.0', 'x'.repeat(100_000)),
    rule: 'yaml.scalar-too-long',
    at: 2,
  },
  {
    name: 'an unknown alias',
    content: edit(BASE, 'model: deepseek-ai/DeepSeek-R1-0528', 'model: *nowhere'),
    rule: 'yaml.syntax',
    at: 3,
  },
  {
    name: 'a duplicate key',
    content: edit(BASE, '  precision: fp8\n', '  precision: fp8\n  precision: fp4\n'),
    rule: 'yaml.duplicate-key',
    at: 6,
  },
  { name: '100k search-space entries', content: searchSpace(100_000), rule: 'yaml.too-large', at: null },
  {
    name: '10,001 search-space entries',
    content: searchSpace(10_001),
    rule: 'size.search-space',
    at: 10_014,
  },
  { name: '101,000 rows', content: manyRows(), rule: 'matrix.too-many-rows', at: 1 },
  // --- Entries that crashed (item 8) ---
  {
    name: 'an entry without scenarios',
    content: edit(BASE, / {2}scenarios:[\s\S]*/.exec(BASE)![0], ''),
    rule: 'key.required',
    at: 1,
    says: /'scenarios' is missing/,
  },
  {
    name: 'an empty entry',
    content: 'dsr1-fp8-h200-vllm:\n',
    rule: 'entry.not-mapping',
    at: 1,
    says: /is empty/,
  },
  {
    name: 'an entry that is a list',
    content: 'k:\n  - 1\n',
    rule: 'entry.not-mapping',
    at: 1,
    says: /a list/,
  },
  { name: 'an entry that is a number', content: 'k: 5\n', rule: 'entry.not-mapping', at: 1 },
  {
    name: 'scenarios: null',
    content: edit(BASE, / {2}scenarios:[\s\S]*/.exec(BASE)![0], '  scenarios:\n'),
    rule: 'value.type',
    at: 9,
  },
  {
    name: 'scenarios is a list',
    content: edit(BASE, / {2}scenarios:[\s\S]*/.exec(BASE)![0], '  scenarios: [1]\n'),
    rule: 'value.type',
    at: 9,
  },
  {
    name: 'fixed-seq-len is a mapping',
    content: edit(BASE, / {4}fixed-seq-len:[\s\S]*/.exec(BASE)![0], '    fixed-seq-len: { isl: 1 }\n'),
    rule: 'value.type',
    at: 10,
  },
  {
    name: 'a null fixed-seq-len item',
    content: edit(BASE, / {6}- isl: 1024[\s\S]*/.exec(BASE)![0], '      -\n'),
    rule: 'value.type',
    at: 10,
    says: /must be a mapping, got null/,
  },
  { name: 'a null search-space entry', content: withEntry('          -'), rule: 'value.type', at: 13 },
  {
    name: 'search-space is a scalar',
    content: edit(BASE, / {8}search-space:[\s\S]*/.exec(BASE)![0], '        search-space: 8\n'),
    rule: 'value.type',
    at: 13,
  },
  {
    name: 'multinode: "yes"',
    content: edit(BASE, 'multinode: false', 'multinode: "yes"'),
    rule: 'value.enum',
    at: 8,
  },
  {
    name: 'router is a string',
    content: withEntry('          - { tp: 8, conc-list: [4], router: nginx }'),
    rule: 'value.type',
    at: 14,
  },
  {
    name: 'a null prefill worker',
    content: mn('prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: false }', 'prefill:'),
    rule: 'value.type',
    says: /'prefill' must be a mapping, got null/,
    at: 17,
  },
  {
    name: 'a prefill worker that is a list',
    content: mn('prefill: { num-worker: 1, tp: 4, ep: 4, dp-attn: false }', 'prefill: [1]'),
    rule: 'value.type',
    at: 17,
  },
  // --- Concurrency, lengths, parallelism (items 12, 16) ---
  {
    name: 'conc-end: 1e12',
    content: withEntry('          - { tp: 8, conc-start: 4, conc-end: 1000000000000 }'),
    rule: 'value.too-large',
    at: 14,
    says: /too large.*at most 100,000/,
  },
  {
    name: 'conc-end: 23 digits',
    content: withEntry('          - { tp: 8, conc-start: 4, conc-end: 99999999999999999999999 }'),
    rule: 'value.too-large',
    at: 14,
    says: /too large/,
  },
  {
    name: 'conc-end: 2^63 in hex',
    content: withEntry('          - { tp: 8, conc-start: 4, conc-end: 0x7FFFFFFFFFFFFFFF }'),
    rule: 'value.too-large',
    at: 14,
  },
  {
    name: 'conc-start: -23 digits',
    content: withEntry('          - { tp: 8, conc-start: -99999999999999999999999, conc-end: 4 }'),
    rule: 'conc.range-positive',
    at: 14,
  },
  {
    name: 'a conc-list entry of 10^6',
    content: withEntry('          - { tp: 8, conc-list: [4, 1000000] }'),
    rule: 'value.too-large',
    at: 14,
  },
  {
    name: 'a conc-list of 2,000 entries',
    content: withEntry(
      `          - { tp: 8, conc-list: [${Array.from({ length: 2000 }, (_, i) => i + 1).join(', ')}] }`,
    ),
    rule: 'list.too-long',
    at: 14,
    says: /at most 1,024/,
  },
  {
    name: 'conc-end: .inf',
    content: withEntry('          - { tp: 8, conc-start: 4, conc-end: .inf }'),
    rule: 'value.type',
    at: 14,
  },
  {
    name: 'isl: 0',
    content: edit(BASE, 'isl: 1024', 'isl: 0'),
    rule: 'value.range',
    at: 11,
    says: /'isl' must be greater than 0/,
  },
  {
    name: 'osl: -1',
    content: edit(BASE, 'osl: 1024', 'osl: -1'),
    rule: 'value.range',
    at: 12,
    says: /'osl' must be greater than 0/,
  },
  {
    name: 'isl: 2*10^7',
    content: edit(BASE, 'isl: 1024', 'isl: 20000000'),
    rule: 'value.too-large',
    at: 11,
    says: /at most 10,000,000 tokens/,
  },
  {
    name: 'osl: 23 digits',
    content: edit(BASE, 'osl: 1024', 'osl: 99999999999999999999999'),
    rule: 'value.too-large',
    at: 12,
  },
  { name: 'isl: 1.5', content: edit(BASE, 'isl: 1024', 'isl: 1.5'), rule: 'value.type', at: 11 },
  { name: 'isl: .nan', content: edit(BASE, 'isl: 1024', 'isl: .nan'), rule: 'value.type', at: 11 },
  {
    name: 'tp: 0',
    content: withEntry('          - { tp: 0, conc-list: [4] }'),
    rule: 'value.range',
    at: 14,
    says: /'tp' must be greater than 0/,
  },
  {
    name: 'tp: -8',
    content: withEntry('          - { tp: -8, conc-list: [4] }'),
    rule: 'value.range',
    at: 14,
  },
  {
    name: 'ep: 0',
    content: withEntry('          - { tp: 8, ep: 0, conc-list: [4] }'),
    rule: 'value.range',
    at: 14,
  },
  {
    name: 'tp: 23 digits',
    content: withEntry('          - { tp: 99999999999999999999999, conc-list: [4] }'),
    rule: 'value.too-large',
    at: 14,
  },
  {
    name: 'pp: 10^5',
    content: withEntry('          - { tp: 8, pp: 100000, conc-list: [4] }'),
    rule: 'value.too-large',
    at: 14,
    says: /at most 16,384 GPUs/,
  },
  {
    name: 'a worker with num-worker: -1',
    content: mn('prefill: { num-worker: 1,', 'prefill: { num-worker: -1,'),
    rule: 'value.range',
    at: 17,
  },
  {
    name: 'a worker with tp: 0',
    content: mn('decode: { num-worker: 1, tp: 8,', 'decode: { num-worker: 1, tp: 0,'),
    rule: 'value.range',
    at: 18,
  },
  // --- Strings (items 6, 11) ---
  {
    name: 'model-prefix: ../../../ESCAPED',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: ../../../ESCAPED'),
    rule: 'naming.unsafe',
    at: 4,
    says: /file name/,
  },
  {
    name: 'model-prefix with a slash',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: a/b'),
    rule: 'naming.unsafe',
    at: 4,
  },
  {
    name: 'model-prefix: ..',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: ".."'),
    rule: 'naming.unsafe',
    at: 4,
  },
  {
    name: 'model-prefix: .hidden',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: .hidden'),
    rule: 'naming.unsafe',
    at: 4,
  },
  {
    name: 'an empty model-prefix',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: ""'),
    rule: 'naming.unsafe',
    at: 4,
  },
  {
    name: 'model-prefix with a blank',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: "ds r1"'),
    rule: 'naming.unsafe',
    at: 4,
  },
  {
    name: 'model-prefix with a newline',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: "ds\\nr1"'),
    rule: 'naming.unsafe',
    at: 4,
  },
  {
    name: 'model-prefix of 100 characters',
    content: edit(BASE, 'model-prefix: dsr1', `model-prefix: ${'d'.repeat(100)}`),
    rule: 'value.too-long',
    at: 4,
  },
  {
    name: 'model-prefix that is an int',
    content: edit(BASE, 'model-prefix: dsr1', 'model-prefix: 12'),
    rule: 'value.type',
    at: 4,
  },
  {
    name: 'precision with ../',
    content: edit(BASE, 'precision: fp8', 'precision: fp8/../../x'),
    rule: 'naming.unsafe',
    at: 5,
  },
  {
    name: 'framework with a shell command',
    content: edit(BASE, 'framework: vllm', 'framework: "vllm;rm -rf ~"'),
    rule: 'naming.unsafe',
    at: 6,
  },
  {
    name: 'runner: ../h200',
    content: edit(BASE, 'runner: h200', 'runner: ../h200'),
    rule: 'naming.unsafe',
    at: 7,
  },
  {
    name: 'runner with a backslash',
    content: edit(BASE, 'runner: h200', 'runner: "..\\\\h200"'),
    rule: 'naming.unsafe',
    at: 7,
  },
  {
    name: 'an image of 1,000 characters',
    content: edit(BASE, 'vllm/vllm-openai:v0.11.0', `vllm/${'x'.repeat(1000)}`),
    rule: 'value.too-long',
    at: 2,
  },
  {
    name: 'a model with a newline',
    content: edit(BASE, 'model: deepseek-ai/DeepSeek-R1-0528', 'model: "deepseek-ai/DeepSeek\\nR1"'),
    rule: 'value.control-character',
    at: 3,
  },
  {
    name: 'a router name of 300 characters',
    content: withEntry(
      `          - { tp: 8, conc-list: [4], router: { name: ${'r'.repeat(300)}, version: v1 } }`,
    ),
    rule: 'value.too-long',
    at: 14,
  },
  {
    name: 'an additional setting with a NUL',
    content: mn(
      'dp-attn: false }\n            decode',
      'dp-attn: false, additional-settings: ["A=\\0"] }\n            decode',
    ),
    rule: 'value.control-character',
    at: 17,
  },
  // --- A bad runner config ---
  {
    name: 'runners.yaml: a directory',
    role: 'runners',
    content: { kind: 'dir' },
    rule: 'file.not-regular',
    at: null,
  },
  {
    name: 'runners.yaml: a FIFO',
    role: 'runners',
    content: { kind: 'fifo' },
    rule: 'file.not-regular',
    at: null,
  },
  {
    name: 'runners.yaml: /dev/zero',
    role: 'runners',
    content: { kind: 'path', path: '/dev/zero' },
    rule: 'file.not-regular',
    at: null,
  },
  {
    name: 'runners.yaml: invalid UTF-8',
    role: 'runners',
    content: Buffer.concat([Buffer.from('labels:\n  h200: [h2'), Buffer.from([0xff]), Buffer.from('00]\n')]),
    rule: 'file.encoding',
    at: 2,
    column: 12,
  },
  {
    name: 'runners.yaml: UTF-16',
    role: 'runners',
    content: Buffer.from(`\ufeff${BASE_RUNNERS}`, 'utf16le'),
    rule: 'file.encoding',
    at: 1,
  },
  {
    name: 'runners.yaml: a label ../evil',
    role: 'runners',
    content: edit(BASE_RUNNERS, '  gb200: [', '  ../evil: [x]\n  gb200: ['),
    rule: 'naming.unsafe',
    at: 3,
  },
  {
    name: 'runners.yaml: a node name with /',
    role: 'runners',
    content: edit(BASE_RUNNERS, 'h200-cw_1', '../../h200'),
    rule: 'naming.unsafe',
    at: 2,
  },
  {
    name: 'runners.yaml: 20,000 nested [',
    role: 'runners',
    content: nested('[', 20_000),
    rule: 'yaml.too-deep',
    at: 1,
  },
  {
    name: 'runners.yaml: a master config',
    role: 'runners',
    content: BASE,
    rule: 'runners.labels-mapping',
    at: null,
    says: /--config-files/,
  },
  {
    name: 'runners.yaml: labels is a list',
    role: 'runners',
    content: 'labels: [h200]\n',
    rule: 'runners.labels-mapping',
    at: 1,
  },
  // --- Valid, but cannot run: `infx check` refuses them (item 15) ---
  {
    name: 'tp: 3 on 128 attention heads',
    content: withEntry('          - { tp: 3, conc-list: [4] }'),
    rule: 'topology.tp-heads',
    at: null,
    commands: ['check'],
  },
  {
    name: 'tp: 16 on an 8-GPU node',
    content: withEntry('          - { tp: 16, conc-list: [4] }'),
    rule: 'topology.exceeds-node',
    at: null,
    commands: ['check'],
  },
  {
    name: 'tp: 8 on a 4-GPU node (runners.yaml)',
    content: edit(BASE, 'runner: h200', 'runner: gb200'),
    rule: 'topology.exceeds-node',
    at: null,
    commands: ['check'],
  },
  {
    name: 'pp: 2 × tp: 8 on one node',
    content: withEntry('          - { tp: 8, pp: 2, conc-list: [4] }'),
    rule: 'topology.exceeds-node',
    at: null,
    commands: ['check'],
  },
  {
    name: 'ep: 16 on 8 GPUs',
    content: withEntry('          - { tp: 8, ep: 16, conc-list: [4] }'),
    rule: 'topology.ep-exceeds-gpus',
    at: null,
    commands: ['check'],
  },
  {
    name: 'a worker with ep wider than its GPUs',
    content: mn('tp: 4, ep: 4, dp-attn', 'tp: 4, ep: 8, dp-attn'),
    rule: 'topology.ep-exceeds-gpus',
    at: null,
    commands: ['check'],
  },
  {
    name: 'framework: atom',
    content: edit(BASE, 'framework: vllm', 'framework: atom'),
    rule: 'framework.no-recipe',
    at: null,
    commands: ['check'],
  },
  {
    name: 'framework: tilert',
    content: edit(BASE, 'framework: vllm', 'framework: tilert'),
    rule: 'framework.no-recipe',
    at: null,
    commands: ['check'],
  },
  {
    name: 'isl beyond the model context',
    content: edit(BASE, 'isl: 1024', 'isl: 200000'),
    rule: 'context.max-model-len',
    at: null,
    commands: ['check'],
  },
];
