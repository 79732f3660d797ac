import type { SweepProgress } from './sweep.ts';

/**
 * What a sweep shows while it runs. On a terminal: log lines scroll above one live line (points done,
 * failed, running, pending, ETA) redrawn in place. Elsewhere (CI): the log lines, plus the counts as a
 * plain line whenever they change.
 */

export interface SweepReporter {
  log(line: string): void;
  progress(p: SweepProgress): void;
  end(): void;
}

export function formatDuration(s: number): string {
  if (s < 60) return `${Math.round(s)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function progressLine(p: SweepProgress): string {
  const eta = p.etaS === null ? '' : `, ETA ${formatDuration(p.etaS)}`;
  const running = p.running.length
    ? ` (${p.running.slice(0, 2).join(', ')}${p.running.length > 2 ? ', …' : ''})`
    : '';
  return `sweep: ${p.done}/${p.total} done, ${p.failed} failed, ${p.running.length} running${running}, ${p.pending} pending${eta}`;
}

export function sweepReporter(out: { write(text: string): void; isTTY: boolean }): SweepReporter {
  let live = '';
  let lastPlain = '';
  const stamp = () => new Date().toISOString().slice(11, 19);
  return {
    log(line) {
      if (out.isTTY) out.write(`\r\x1b[2K${line}\n${live}`);
      else out.write(`[${stamp()}] ${line}\n`);
    },
    progress(p) {
      const line = progressLine(p);
      if (out.isTTY) {
        live = line.length > 160 ? `${line.slice(0, 159)}…` : line;
        out.write(`\r\x1b[2K${live}`);
        return;
      }
      const counts = `${p.done}/${p.failed}/${p.running.length}/${p.pending}`;
      if (counts === lastPlain) return;
      lastPlain = counts;
      out.write(`[${stamp()}] ${line}\n`);
    },
    end() {
      if (out.isTTY && live) out.write('\r\x1b[2K');
      live = '';
    },
  };
}
