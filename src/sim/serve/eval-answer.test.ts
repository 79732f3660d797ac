import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cutAtStop,
  type EvalAnswerTable,
  evalTextFor,
  piecesOf,
  simulatedAnswer,
  stopStrings,
} from './eval-answer.ts';

/** The simulated engine's eval answers: the per-question seeded rule, stop strings, max_tokens. */

const draw = (seed: number, question: string) =>
  createHash('sha256').update(`infx-sim-eval\u0000${seed}\u0000${question}`).digest();
const u = (seed: number, q: string) => draw(seed, q).readUInt32BE(0) / 2 ** 32;

const table = (answers: Record<string, string>): EvalAnswerTable => ({
  questions: Object.keys(answers).length,
  file: 'gsm.jsonl',
  lookup: (prompt) => (prompt in answers ? { question: prompt, answer: answers[prompt] as string } : null),
});
const filler = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ` w${from + i}`).join('');

describe('simulatedAnswer', () => {
  it('is right exactly when the question draw is below the accuracy', () => {
    const q = 'How many apples?';
    const x = u(7, q);
    expect(simulatedAnswer(q, '42', x, 7).kind).not.toBe('right');
    const right = simulatedAnswer(q, '42', x + 1e-9, 7);
    expect(right.kind).toBe('right');
    expect(right.text.endsWith('\n#### 42')).toBe(true);
    expect(simulatedAnswer(q, '42', 1, 7).kind).toBe('right');
    expect(simulatedAnswer(q, '42', 0, 7).kind).not.toBe('right');
  });

  it('answers wrong ones with another number in the format, or the right number malformed', () => {
    const kinds = { 'wrong-number': 0, malformed: 0 };
    for (let i = 0; i < 200; i++) {
      const q = `Q${i}?`;
      const a = simulatedAnswer(q, '1,000', 0, 3);
      const d = draw(3, q);
      const last = a.text.split('\n').at(-1) as string;
      if (d.readUInt32BE(4) % 4 === 0) {
        expect(a.kind).toBe('malformed');
        expect(last).toBe((d[13] as number) & 1 ? 'The answer is 1,000.' : '####1,000');
      } else {
        expect(a.kind).toBe('wrong-number');
        const delta = (1 + (d.readUInt32BE(8) % 9)) * ((d[12] as number) & 1 ? -1 : 1);
        expect(last).toBe(`#### ${1000 + delta}`);
      }
      kinds[a.kind as keyof typeof kinds]++;
    }
    // A quarter malformed, by the rule: both kinds occur.
    expect(kinds.malformed).toBeGreaterThan(20);
    expect(kinds['wrong-number']).toBeGreaterThan(100);
  });

  it('keeps the decimals of a decimal answer and never repeats the gold number', () => {
    for (let i = 0; i < 50; i++) {
      const a = simulatedAnswer(`D${i}`, '2.5', 0, 1);
      if (a.kind !== 'wrong-number') continue;
      const n = (a.text.split('#### ')[1] as string).trim();
      expect(n).toMatch(/^-?\d+\.5$/);
      expect(n).not.toBe('2.5');
    }
  });

  it('depends on the seed', () => {
    const qs = Array.from({ length: 40 }, (_, i) => `S${i}`);
    const right = (seed: number) => qs.map((q) => simulatedAnswer(q, '1', 0.5, seed).kind === 'right');
    expect(right(1)).toEqual(right(1));
    expect(right(1)).not.toEqual(right(2));
  });
});

describe('evalTextFor', () => {
  const opts = { accuracy: 1, seed: 0, table: table({ 'Q?': '17' }) };

  it('gives no answer to a prompt the table does not know', () => {
    expect(evalTextFor(opts, 'Hello', undefined)).toBeNull();
  });

  it('serves the answer one piece per token, then filler past its end (ignore_eos)', () => {
    const a = evalTextFor(opts, 'Q?', undefined);
    if (a === null) throw new Error('no answer');
    expect(a.kind).toBe('right');
    const whole = simulatedAnswer('Q?', '17', 1, 0).text;
    expect(a.tokens).toBe(piecesOf(whole).length);
    expect(a.text(0, a.tokens, filler)).toBe(whole);
    // max_tokens 3: the first three words.
    expect(a.text(0, 3, filler)).toBe('Let me work');
    expect(a.text(a.tokens - 1, a.tokens + 2, filler)).toBe(` 17 w${a.tokens} w${a.tokens + 1}`);
  });

  it('cuts the answer before the first stop string', () => {
    const a = evalTextFor(opts, 'Q?', ['</s>', '####', 'Then']);
    const text = a?.text(0, a.tokens, filler) ?? '';
    // Everything before "Then", its newline included (the last piece is that white space).
    expect(text).toBe(
      'Let me work through this step by step.\nFirst, I list the quantities the question gives and what it asks for.\n',
    );
    expect(text).not.toContain('####');
  });

  it('reads stop as a string or a list', () => {
    expect(stopStrings('x')).toEqual(['x']);
    expect(stopStrings(['a', '', 3, 'b'])).toEqual(['a', 'b']);
    expect(stopStrings(undefined)).toEqual([]);
    expect(cutAtStop('abcabc', ['c', 'b'])).toBe('a');
  });
});
