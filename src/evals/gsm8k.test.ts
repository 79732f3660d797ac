import { describe, expect, it } from 'vitest';
import type { GsmDoc } from '../schema/evals.ts';
import { gradeResponse } from './grade.ts';
import {
  chatMessages,
  evalMaxTokens,
  exactMatch,
  fewshotDocs,
  flexibleExtract,
  meanAndStderr,
  normalize,
  singleTurnText,
  strictMatch,
} from './gsm8k.ts';

// A GSM8K target: reasoning with numbers, commas and a dollar sign, then the `#### N` line.
const TARGET =
  'She sold 48/2 = <<48/2=24>>24 clips in May.\nShe sold 1,000 + 234 = $1,234 in total.\n#### 1,234';

describe('exact_match normalisation (regexes_to_ignore, ignore_case)', () => {
  it('reduces a target to its final answer: commas out, dollar signs out, everything through the last "#### " out', () => {
    expect(normalize(TARGET)).toBe('1234');
  });
  it('drops one trailing period, also before a final newline (Python $), and lower-cases', () => {
    expect(normalize('18.')).toBe('18');
    expect(normalize('18.\n')).toBe('18\n');
    expect(normalize('18.00')).toBe('18.00');
    expect(normalize('A.b')).toBe('a.b');
  });
});

// Each row worked by hand with lm-eval's rules: strict `#### (\-?[0-9\.\,]+)` last match; flexible
// `(-?[$0-9.,]{2,})|(-?[0-9]+)` last match, first non-empty group; both normalised before comparing with 1,234.
describe.each([
  ['plain answer line', 'The total is 1,234.\n#### 1,234', '1,234', true, '1,234', true],
  ['trailing period', '#### 1234.', '1234.', true, '1234.', true],
  ['dollar sign after ####: strict needs a digit', '#### $1,234', '[invalid]', false, '$1,234', true],
  ['no space after ####', '####1234', '[invalid]', false, '1234', true],
  ['several #### lines: the last one counts', '#### 5\n#### 1234', '1234', true, '1234', true],
  ['the last #### line is wrong', '#### 1234\nWait, #### 5', '5', false, '5', false],
  ['decimals are not trimmed', '#### 1234.00', '1234.00', false, '1234.00', false],
  ['no number at all', "I don't know", '[invalid]', false, '[invalid]', false],
  ['empty response', '', '[invalid]', false, '[invalid]', false],
  [
    'flexible takes the last number, dollar and period included',
    'She earned $1,234.',
    '[invalid]',
    false,
    '$1,234.',
    true,
  ],
  [
    'flexible takes a single digit through its second group',
    'so 1234 apples and 7',
    '[invalid]',
    false,
    '7',
    false,
  ],
  ['a negative is not the positive', '#### -1234', '-1234', false, '-1234', false],
  ['words after the number', '#### 1234 dollars', '1234', true, '1234', true],
  ['trailing newline', '#### 1234\n', '1234', true, '1234', true],
])('%s', (_name, response, strict, strictOk, flexible, flexOk) => {
  it('extracts and grades as lm-eval does', () => {
    expect(strictMatch(response)).toBe(strict);
    expect(flexibleExtract(response)).toBe(flexible);
    const g = gradeResponse(response, TARGET);
    expect(g.filtered).toEqual({ 'strict-match': strict, 'flexible-extract': flexible });
    expect(g.correct).toEqual({ 'strict-match': strictOk, 'flexible-extract': flexOk });
  });
});

describe('negatives and decimals against their own targets', () => {
  it('grades -3 and 0.5', () => {
    expect(exactMatch(strictMatch('#### -3'), 'x\n#### -3')).toBe(true);
    expect(strictMatch('The answer is -3')).toBe('[invalid]');
    expect(exactMatch(flexibleExtract('The answer is -3'), 'x\n#### -3')).toBe(true);
    expect(exactMatch(flexibleExtract('it is 0.5'), 'x\n#### 0.5')).toBe(true);
  });
  it('a failed request is graded as nothing, and a forced-wrong (truncated) one keeps its extraction', () => {
    expect(gradeResponse(null, TARGET).filtered['strict-match']).toBe('[invalid]');
    const t = gradeResponse('#### 1234', TARGET, true);
    expect(t.filtered['strict-match']).toBe('1234');
    expect(t.correct).toEqual({ 'strict-match': false, 'flexible-extract': false });
  });
});

describe('mean and standard error, as lm-eval computes them', () => {
  it('uses the sample standard deviation over sqrt(n)', () => {
    // mean 0.75; squared deviations 3 × 0.0625 + 0.5625 = 0.75; / (n − 1) = 0.25; sqrt = 0.5; / sqrt(4) = 0.25
    expect(meanAndStderr([1, 0, 1, 1])).toEqual({ mean: 0.75, stderr: 0.25 });
    expect(meanAndStderr([1])).toEqual({ mean: 1, stderr: 'N/A' });
  });
});

const doc = (i: number): GsmDoc => ({ question: `Q${i}?`, answer: `A${i}\n#### ${i}` });

describe('few-shot prompts', () => {
  const train = [doc(0), doc(1), doc(2)];
  const test = [doc(10), doc(11)];
  // Python: r = random.Random(1234); r.sample([0, 1, 2], 2) → [1, 0], then [0, 2]
  const shots = fewshotDocs(train, 2, 2);
  it("draws each document's examples from one seeded generator, in document order", () => {
    expect(shots).toEqual([
      [doc(1), doc(0)],
      [doc(0), doc(2)],
    ]);
  });
  const text = (i: number) =>
    `Question: Q${i}?\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:`;
  it('draws from the 7,473-document train split what lm-eval draws (CPython Random(1234).sample)', () => {
    const big = Array.from({ length: 7473 }, (_, i) => doc(i));
    const ids = fewshotDocs(big, 2, 5).map((s) => s.map((d) => Number(d.question.slice(1, -1))));
    expect(ids).toEqual([
      [6374, 3610, 957, 61, 742],
      [7462, 6610, 4769, 286, 5501],
    ]);
  });
  it('builds the multi-turn chat exactly', () => {
    expect(chatMessages(test[1] as GsmDoc, shots[1] as GsmDoc[])).toEqual([
      { role: 'user', content: text(0) },
      { role: 'assistant', content: 'A0\n#### 0' },
      { role: 'user', content: text(2) },
      { role: 'assistant', content: 'A2\n#### 2' },
      { role: 'user', content: text(11) },
    ]);
  });
  it('builds the single-turn text exactly', () => {
    expect(singleTurnText(test[0] as GsmDoc, shots[0] as GsmDoc[])).toBe(
      `${text(1)} A1\n#### 1\n\n${text(0)} A0\n#### 0\n\n${text(10)}`,
    );
  });
  it('budgets max_tokens from the context as the reference does', () => {
    expect(evalMaxTokens(16384)).toBe(12288);
    expect(evalMaxTokens(4096)).toBe(2048);
    expect(evalMaxTokens(40000)).toBe(16384);
  });
});
