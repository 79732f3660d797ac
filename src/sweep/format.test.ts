import { describe, expect, it } from 'vitest';
import { failureCause } from './format.ts';

describe('failureCause', () => {
  const bare = "the engine's server process exited before it was ready (exit code 1)";

  it('a status written before causes came from the log: read from its log tail', () => {
    const logTail = ['=== infx: starting server: vllm serve m', 'ValueError: bad max_model_len', 'INFO bye'];
    expect(failureCause({ phase: 'setup', reason: bare, logTail })).toBe(
      `setup: ${bare}: ValueError: bad max_model_len`,
    );
    expect(
      failureCause({
        phase: 'setup',
        reason: bare.replace('exit code 1', 'exit code 127'),
        logTail: ['=== infx: could not start server: spawn vllm ENOENT'],
      }),
    ).toBe("setup: the engine's server process could not start: spawn vllm ENOENT");
  });

  it('a reason that already has its cause, or any other reason, is shown as it is', () => {
    const logTail = ['RuntimeError: something else'];
    const withCause = `${bare}: OSError: disk full`;
    expect(failureCause({ phase: 'setup', reason: withCause, logTail })).toBe(`setup: ${withCause}`);
    expect(failureCause({ phase: 'warmup', reason: 'every warmup request failed', logTail })).toBe(
      'warmup: every warmup request failed',
    );
  });
});
