import type { ParsedTelemetry, PowerSample } from './power.ts';

/**
 * Reads the GPU monitor's CSV (`nvidia-smi --query-gpu=timestamp,index,power.draw,… --format=csv`, or
 * amd-smi's CSV) the way the reference's aggregate_power.py does: columns found by name, cells parsed
 * leniently, and an unreadable cell kept as NaN / "" so the integrator decides whether it matters.
 */

const TIME_COL = /time/i;
const POWER_COL = /power/i;
const POWER_EXCLUDE = /limit|cap|max|min/i;
const GPU_COL = /^(index|gpu|gpu_id|gpu_index|card|device)$/i;
const NUMBER = /-?\d+(?:\.\d+)?/;

/** One CSV line into cells, honouring double quotes; cells are trimmed (nvidia-smi pads after commas). */
function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  cells.push(cur.trim());
  return cells;
}

export interface TimestampOptions {
  /**
   * Offset from UTC, minutes, of naive timestamps (nvidia-smi prints local time without a zone).
   * Default: this machine's local time, as the reference assumes.
   */
  utcOffsetMinutes?: number;
}

function naiveToUnix(parts: number[], frac: string, opts: TimestampOptions): number {
  const [y, mo, d, h, mi, s] = parts as [number, number, number, number, number, number];
  const whole =
    opts.utcOffsetMinutes === undefined
      ? new Date(y, mo - 1, d, h, mi, s).getTime() / 1000
      : Date.UTC(y, mo - 1, d, h, mi, s) / 1000 - opts.utcOffsetMinutes * 60;
  return whole + (frac ? Number(`0.${frac}`) : 0);
}

const SMI_TS = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const ISO_TS = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/;

/** Unix seconds from an SMI timestamp, an ISO 8601 one, or a bare epoch (s, or ms above 1e12); NaN if none. */
export function parseTelemetryTimestamp(text: string, opts: TimestampOptions = {}): number {
  const v = text.trim();
  if (v === '') return Number.NaN;
  if (/^-?\d+(?:\.\d+)?$/.test(v)) {
    const n = Number(v);
    return n > 1e12 ? n / 1000 : n;
  }
  const smi = SMI_TS.exec(v);
  if (smi) return naiveToUnix(smi.slice(1, 7).map(Number), smi[7] ?? '', opts);
  const iso = ISO_TS.exec(v);
  if (!iso) return Number.NaN;
  const parts = iso.slice(1, 7).map(Number);
  const zone = iso[8];
  if (zone === undefined) return naiveToUnix(parts, iso[7] ?? '', opts);
  const offset =
    zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  return naiveToUnix(parts, iso[7] ?? '', { utcOffsetMinutes: offset });
}

/** Watts from a cell such as "412.34 W" or "412.34"; NaN for "[N/A]" and the like. */
export function parsePowerCell(text: string): number {
  const v = text.trim();
  if (v === '' || ['[n/a]', 'n/a', 'na'].includes(v.toLowerCase())) return Number.NaN;
  const m = NUMBER.exec(v);
  return m ? Number(m[0]) : Number.NaN;
}

export function parseGpuMetricsCsv(text: string, opts: TimestampOptions = {}): ParsedTelemetry {
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => l.trim() !== '');
  if (headerAt < 0) return { samples: [], reasons: ['telemetry_file_empty'] };
  const header = splitCsvLine(lines[headerAt]!);
  const timeCol = header.findIndex((c) => TIME_COL.test(c));
  const powerCol = header.findIndex((c) => POWER_COL.test(c) && !POWER_EXCLUDE.test(c));
  const gpuCol = header.findIndex((c) => GPU_COL.test(c));
  const reasons: string[] = [];
  if (timeCol < 0) reasons.push('timestamp_column_missing');
  if (powerCol < 0) reasons.push('power_column_missing');
  if (gpuCol < 0) reasons.push('gpu_identity_column_missing');
  if (reasons.length > 0) return { samples: [], reasons };

  const samples: PowerSample[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (line.trim() === '') continue;
    const cells = splitCsvLine(line);
    samples.push({
      timestampS: parseTelemetryTimestamp(cells[timeCol] ?? '', opts),
      gpu: cells[gpuCol] ?? '',
      powerW: parsePowerCell(cells[powerCol] ?? ''),
    });
  }
  return { samples, reasons: [] };
}
