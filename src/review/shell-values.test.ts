// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell scripts, whose ${…} the shell reader expands
import { describe, expect, it } from 'vitest';
import { flagValues } from './shell-values.ts';
import { arithmetic } from './shell-words.ts';

const SEQS = new Set(['--max-num-seqs', '--enforce-eager', '--max-cudagraph-capture-size']);
const at = (script: string, env: Record<string, string> = {}) =>
  flagValues(script, env, SEQS).map(({ flag, value, line, certain }) => ({ flag, value, line, certain }));

describe('arithmetic', () => {
  const vars = new Map<string, string | null>([
    ['CONC', '64'],
    ['LOST', null],
    ['EMPTY', ''],
  ]);
  it('evaluates as $(( )) does: precedence, truncating division, comparisons, ternary', () => {
    expect(arithmetic('2 + 3 * 4', vars)).toBe(14);
    expect(arithmetic('(2 + 3) * 4', vars)).toBe(20);
    expect(arithmetic('7 / 2', vars)).toBe(3);
    expect(arithmetic('-7 / 2', vars)).toBe(-3);
    expect(arithmetic('CONC * 2 > 128 ? CONC * 2 : 128', vars)).toBe(128);
    expect(arithmetic('$CONC >= 64 && ${CONC} < 100', vars)).toBe(1);
    expect(arithmetic('UNSET + 1', vars)).toBe(1);
    expect(arithmetic('EMPTY + 1', vars)).toBe(1);
  });
  it('is unknown on a lost variable, division by zero or what it cannot parse', () => {
    expect(arithmetic('LOST * 2', vars)).toBeNull();
    expect(arithmetic('CONC / 0', vars)).toBeNull();
    expect(arithmetic('CONC ** 2', vars)).toBeNull();
    expect(arithmetic('2 +', vars)).toBeNull();
  });
});

describe('flagValues', () => {
  it('expands variables, defaults and arithmetic at the point', () => {
    const script = [
      'MAX_SEQS=${MAX_NUM_SEQS:-256}',
      'CG=$(( CONC * 2 > 128 ? CONC * 2 : 128 ))',
      'vllm serve "$MODEL" --max-num-seqs "$MAX_SEQS" \\',
      '  --max-cudagraph-capture-size=${CG}',
    ].join('\n');
    expect(at(script, { CONC: '128' })).toEqual([
      { flag: '--max-num-seqs', value: '256', line: 3, certain: true },
      { flag: '--max-cudagraph-capture-size', value: '256', line: 4, certain: true },
    ]);
    expect(at(script, { CONC: '8', MAX_NUM_SEQS: '64' }).map((f) => f.value)).toEqual(['64', '128']);
  });

  it('follows if arms whose tests it can decide, and only those', () => {
    const script = [
      'if [[ $CONC -ge 64 ]]; then',
      '  SEQS=512',
      'elif [ "$CONC" -gt 8 ]; then SEQS=128',
      'else',
      '  SEQS=16',
      'fi',
      'vllm serve m --max-num-seqs $SEQS',
    ].join('\n');
    expect(at(script, { CONC: '64' })[0]?.value).toBe('512');
    expect(at(script, { CONC: '32' })[0]?.value).toBe('128');
    expect(at(script, { CONC: '4' })[0]?.value).toBe('16');
  });

  it('makes what an undecidable arm, a loop or a case assigns unknown', () => {
    const undecided =
      'SEQS=128\nif command -v rocm-smi; then SEQS=1024; fi\nvllm serve m --max-num-seqs $SEQS';
    expect(at(undecided)).toEqual([{ flag: '--max-num-seqs', value: null, line: 3, certain: true }]);
    const cased = 'SEQS=128\ncase "$SPEC" in\n  mtp) SEQS=256 ;;\nesac\nvllm serve m --max-num-seqs $SEQS';
    expect(at(cased, { SPEC: 'mtp' })[0]?.value).toBeNull();
    const chained = 'SEQS=128\n[ "$CONC" = 1 ] && SEQS=4\nvllm serve m --max-num-seqs $SEQS';
    expect(at(chained, { CONC: '2' })[0]?.value).toBeNull();
    expect(at('vllm serve m --max-num-seqs $(nproc)')[0]?.value).toBeNull();
  });

  it('finds flags inside an argument string, switches among them, and underscores read as dashes', () => {
    const script = 'ARGS="--max_num_seqs 256 --enforce-eager"\nvllm serve m $ARGS';
    expect(at(script)).toEqual([
      { flag: '--max-num-seqs', value: '256', line: 1, certain: true },
      { flag: '--enforce-eager', value: '', line: 1, certain: true },
    ]);
  });

  it('marks a flag passed only when a test holds as uncertain, and skips comments and dead arms', () => {
    const script = [
      '# --max-num-seqs 4 is too small',
      '[ "${EAGER:-0}" = 1 ] && EXTRA="--enforce-eager"',
      'if [[ $TP -eq 2 ]]; then',
      '  vllm serve m --max-num-seqs 32',
      'fi',
    ].join('\n');
    expect(at(script, { TP: '4' })).toEqual([
      { flag: '--enforce-eager', value: '', line: 2, certain: false },
    ]);
    expect(at(script, { TP: '2' }).map((f) => f.value)).toEqual(['', '32']);
  });
});
