import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../schema/request-record.ts';
import { toSimulatedTime } from './time-scale.ts';

describe('toSimulatedTime', () => {
  it('scales every time and gap by the server time scale, keeping nulls', () => {
    const r = {
      scheduledMs: 1,
      sentMs: 2,
      firstByteMs: 3,
      firstTokenMs: 4.5,
      lastTokenMs: null,
      doneMs: 10,
      chunkGapsMs: [0.25, 1],
    } as unknown as RequestRecord;
    toSimulatedTime([r], 20);
    expect(r).toMatchObject({
      scheduledMs: 20,
      sentMs: 40,
      firstByteMs: 60,
      firstTokenMs: 90,
      lastTokenMs: null,
      doneMs: 200,
      chunkGapsMs: [5, 20],
    });
  });
});
