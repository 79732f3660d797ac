import { describe, expect, it } from 'vitest';
import { CAUSE_MAX_CHARS, engineCause, lastMeaningfulLine, spawnError } from './log-tail.ts';

describe('the cause in an engine log', () => {
  const what = "the engine's server process exited before it was ready (exit code 1)";

  it('the spawn error process.ts logged wins over anything else', () => {
    const lines = [
      '=== infx: starting server: vllm serve m',
      '=== infx: could not start server: spawn vllm ENOENT',
    ];
    expect(spawnError(lines)).toEqual({ role: 'server', message: 'spawn vllm ENOENT' });
    expect(engineCause(what, lines)).toBe("the engine's server process could not start: spawn vllm ENOENT");
  });

  it('skips blank lines, progress bars, traceback frames, markers and routine INFO lines', () => {
    const lines = [
      '=== infx: starting server: python -m sglang.launch_server',
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3/site.py", line 12, in <module>',
      '    raise ValueError("bad")',
      '\x1b[31mValueError: max_model_len 200000 is larger than the model (131072)\x1b[0m',
      'Loading safetensors checkpoint shards:  40% Completed | 2/5 [00:03<00:04,  1.5s/it]',
      'Downloading: 100%|██████████| 4.1G/4.1G',
      '2025-01-01 12:00:00,123 - INFO - shutting down',
      '(APIServer pid=12) INFO 05-01 12:00:00 [launcher.py:80] Shutting down FastAPI HTTP server.',
      'level=info msg="bye"',
      '',
      '   ',
    ];
    const last = 'ValueError: max_model_len 200000 is larger than the model (131072)';
    expect(lastMeaningfulLine(lines)).toBe(last);
    expect(engineCause(what, lines)).toBe(`${what}: ${last}`);
  });

  it('a warning or an error is kept even when it mentions INFO later on', () => {
    expect(lastMeaningfulLine(['ERROR 05-01 engine core failed: see INFO above', 'INFO done'])).toBe(
      'ERROR 05-01 engine core failed: see INFO above',
    );
  });

  it('only routine lines: the last of them; nothing at all: the bare reason', () => {
    expect(lastMeaningfulLine(['INFO a', 'INFO b', ''])).toBe('INFO b');
    expect(lastMeaningfulLine(['', '=== infx: starting server: x'])).toBeNull();
    expect(engineCause(what, [])).toBe(what);
  });

  it('the last of carriage-return redraws, and a long line cut to one readable line', () => {
    expect(lastMeaningfulLine(['step 1\rstep 2\rOSError: disk full'])).toBe('OSError: disk full');
    const long = lastMeaningfulLine([`RuntimeError: ${'x'.repeat(1000)}`]) as string;
    expect(long).toHaveLength(CAUSE_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});
