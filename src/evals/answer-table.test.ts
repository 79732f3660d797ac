import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gsmAnswerTable, simEvalAnswers } from './answer-table.ts';
import { chatMessages, docToText, singleTurnText } from './gsm8k.ts';

/** Which GSM8K question a prompt asks, and its gold answer, for the simulated engine. */

const docs = [
  { question: 'Tom has 3 apples. How many?', answer: 'He has 3.\n#### 3' },
  { question: 'Question: a trick? How much?', answer: 'It costs $1,200.\n#### 1,200' },
  { question: 'No answer line', answer: 'forty-two' },
  { question: 'Tom has 3 apples. How many?', answer: '#### 4' },
];
const shots = [{ question: 'Shot one?', answer: 'x\n#### 9' }];
// The chat prompt as the simulated server reads it: the messages' contents joined by newlines.
const chatText = (doc: (typeof docs)[number]) =>
  chatMessages(doc, shots)
    .map((m) => m.content)
    .join('\n');

describe('gsmAnswerTable', () => {
  const table = gsmAnswerTable(docs, 'test.jsonl');

  it('keeps questions with a #### answer, the first of a repeated one', () => {
    expect(table.questions).toBe(2);
    expect(table.lookup(docToText(docs[0]!))).toEqual({ question: docs[0]!.question, answer: '3' });
  });

  it('finds the last question of a few-shot prompt on either endpoint', () => {
    expect(table.lookup(singleTurnText(docs[1]!, shots))?.answer).toBe('1,200');
    expect(table.lookup(chatText(docs[1]!))?.question).toBe('Question: a trick? How much?');
    // The few-shot question is not the one asked.
    expect(table.lookup(chatText({ question: 'Unknown?', answer: '' }))).toBeNull();
  });

  it('answers nothing for a prompt that is not a GSM8K prompt', () => {
    expect(table.lookup('Tom has 3 apples. How many?')).toBeNull();
    expect(table.lookup(`${docToText(docs[0]!)} `)).toBeNull();
    expect(table.lookup('')).toBeNull();
  });
});

describe('simEvalAnswers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'infx-answers-'));
  const file = join(dir, 'gsm.jsonl');
  writeFileSync(file, `${docs.map((d) => JSON.stringify(d)).join('\n')}\n`);

  it('is off without either flag and needs both', () => {
    expect(simEvalAnswers({ seed: 0 })).toBeNull();
    expect(() => simEvalAnswers({ seed: 0, accuracy: 0.5 })).toThrow(/--accuracy needs --eval-dataset FILE/);
    expect(() => simEvalAnswers({ seed: 0, evalDataset: file })).toThrow(/--eval-dataset needs --accuracy/);
  });

  it('loads the file', () => {
    const got = simEvalAnswers({ seed: 4, accuracy: 0.25, evalDataset: file });
    expect(got?.accuracy).toBe(0.25);
    expect(got?.seed).toBe(4);
    expect(got?.table.questions).toBe(2);
  });

  it('names the file when nothing in it can be answered', () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(docs[2])}\n`);
    expect(() => simEvalAnswers({ seed: 0, accuracy: 1, evalDataset: bad })).toThrow(
      `${bad}: no question with a "#### N" answer line`,
    );
  });
});
