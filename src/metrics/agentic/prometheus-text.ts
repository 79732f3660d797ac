/**
 * The Prometheus text exposition format (what vLLM's and SGLang's `/metrics` serve), read into samples.
 * Only what the server-metrics block needs: sample lines and `# TYPE` lines; HELP, timestamps and
 * exemplars are ignored. A line that is not a sample is skipped, not an error: a scrape is evidence about
 * a server, and one odd line must not lose the rest.
 */

export interface PromSample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface PromScrape {
  samples: PromSample[];
  /** `# TYPE` of each family that declared one (counter, gauge, histogram, …). */
  types: ReadonlyMap<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function parseValue(s: string): number {
  if (s === '+Inf' || s === 'Inf') return Number.POSITIVE_INFINITY;
  if (s === '-Inf') return Number.NEGATIVE_INFINITY;
  if (s === 'NaN') return Number.NaN;
  return s === '' ? Number.NaN : Number(s);
}

/** Labels from just after `{`; returns them and the index after `}`, or null when malformed. */
function parseLabels(line: string, at: number): { labels: Record<string, string>; end: number } | null {
  const labels: Record<string, string> = {};
  let i = at;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return { labels, end: i + 1 };
    const name = NAME.exec(line.slice(i));
    if (!name) return null;
    i += name[0].length;
    while (line[i] === ' ') i++;
    if (line[i] !== '=' || line[i + 1] !== '"') return null;
    i += 2;
    let value = '';
    for (; i < line.length && line[i] !== '"'; i++) {
      if (line[i] === '\\' && i + 1 < line.length) {
        i++;
        value += line[i] === 'n' ? '\n' : line[i];
      } else value += line[i];
    }
    if (line[i] !== '"') return null;
    i++;
    labels[name[0]] = value;
  }
}

export function parsePrometheusText(text: string): PromScrape {
  const samples: PromSample[] = [];
  const types = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (m) types.set(m[1]!, m[2]!);
      continue;
    }
    const name = NAME.exec(line);
    if (!name) continue;
    let i = name[0].length;
    let labels: Record<string, string> = {};
    if (line[i] === '{') {
      const parsed = parseLabels(line, i + 1);
      if (!parsed) continue;
      labels = parsed.labels;
      i = parsed.end;
    }
    const value = parseValue(line.slice(i).trim().split(/\s+/)[0] ?? '');
    if (Number.isNaN(value)) continue;
    samples.push({ name: name[0], labels, value });
  }
  return { samples, types };
}

/** A series' identity within a scrape: its name and sorted labels. */
export function seriesKey(s: PromSample): string {
  const labels = Object.keys(s.labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(s.labels[k])}`);
  return `${s.name}{${labels.join(',')}}`;
}
