import { describe, expect, it } from 'vitest';
import { requestText, routeRequestOf, textBlockHashes } from './request-view.ts';

describe('the request view', () => {
  it('takes the prompt, a prompt list, or the chat messages’ text contents', () => {
    expect(requestText({ prompt: 'abc' })).toBe('abc');
    expect(requestText({ prompt: ['a', 'b', 3] })).toBe('a\nb');
    expect(
      requestText({
        messages: [
          { role: 'system', content: 'sys' },
          {
            role: 'user',
            content: [{ type: 'text', text: 'one' }, { type: 'image_url' }, { type: 'text', text: 'two' }],
          },
        ],
      }),
    ).toBe('sys\none\ntwo');
    expect(requestText(null)).toBe('');
    expect(requestText({ input: 'x' })).toBe('');
  });

  it('lowercases headers, parses the body lazily and tolerates a body that is not JSON', () => {
    const v = routeRequestOf(
      { 'x-session-id': 's', cookie: ['a', 'b'] } as never,
      Buffer.from('{"prompt":"hi"}'),
    );
    expect(v.headers).toEqual({ 'x-session-id': 's', cookie: 'a, b' });
    expect(v.body).toEqual({ prompt: 'hi' });
    expect(v.text).toBe('hi');
    expect(v.rawBody).toBe('{"prompt":"hi"}');
    const bad = routeRequestOf({}, 'not json');
    expect(bad.body).toBeNull();
    expect(bad.text).toBe('');
    expect(bad.blockHashes).toBeUndefined();
  });

  it('estimates blocks for kv-aware: a hash per full block, shared exactly over a common prefix', () => {
    const shared = 'x'.repeat(64 * 2);
    const a = routeRequestOf({}, JSON.stringify({ prompt: `${shared}${'a'.repeat(70)}` }), {
      estimateBlocks: { blockSize: 16 },
    });
    const b = textBlockHashes(`${shared}${'b'.repeat(70)}`, 64);
    expect(a.inputTokens).toBe(Math.ceil(198 / 4));
    expect(a.blockHashes).toHaveLength(3);
    expect(b).toHaveLength(3);
    expect(a.blockHashes!.slice(0, 2)).toEqual(b.slice(0, 2));
    expect(a.blockHashes![2]).not.toBe(b[2]);
  });
});
