import { describe, expect, it } from 'vitest';
import { curve, identity } from '../../test/support/curve-points.ts';
import { buildChart } from './chart.ts';
import { escapeXml, frontPath, renderSvg } from './svg.ts';

/** Tags open and close in order (no XML parser in the dependencies; this catches broken markup). */
function balanced(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    const [, close, name, self] = m;
    if (self === '/') continue;
    if (close === '/') {
      if (stack.pop() !== name) return false;
    } else stack.push(name as string);
  }
  return stack.length === 0;
}

const points = curve(
  [
    [100, 500],
    [80, 1200],
    [90, 900],
  ],
  { runId: 'r1' },
);

describe('renderSvg', () => {
  const chart = buildChart([{ label: 'runs/r1', runIds: ['r1'], points }], { width: 800, height: 500 });
  const svg = renderSvg(chart);

  it('a standalone, well-formed SVG document at the requested size', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="800" height="500"')).toBe(true);
    expect(balanced(svg)).toBe(true);
    expect(svg).toContain('Throughput per GPU vs. Interactivity');
    expect(svg).toContain('Interactivity (tok/s/user)');
    expect(svg).toContain('Throughput per GPU (tok/s)');
  });

  it('each series in its group with a title, a circle per point, the front as a path', () => {
    const id = chart.series[0]!.id;
    expect(svg).toContain(`<g class="series" data-series="${escapeXml(id)}">`);
    expect(svg).toContain('<title>h200 sglang fp8 tp8</title>');
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg.match(/<path class="front" d="M[^"]+C/g)).toHaveLength(1);
    expect(svg).toContain('class="legend-item"');
  });

  it('escapes every text (pitfall 20)', () => {
    const evil = identity({ framework: '<script>alert("x")</script>&' });
    const c = buildChart(
      [{ label: "runs/it's<b>", runIds: ['r'], points: curve([[50, 100]], { config: evil }) }],
      {
        title: 'A & B <i>',
      },
    );
    const s = renderSvg(c);
    expect(s).not.toContain('<script>');
    expect(s).not.toContain('<i>');
    expect(s).toContain('A &amp; B &lt;i&gt;');
    expect(s).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
    expect(s).toContain('runs/it&apos;s&lt;b&gt;');
    expect(balanced(s)).toBe(true);
  });

  it('a simulated series: the legend says so, even when its label is cut', () => {
    const engine = { kind: 'simulated', simulator: null } as const;
    const long = identity({ framework: 'a-very-long-framework-name-that-will-not-fit' });
    const c = buildChart(
      [{ label: 'r', runIds: ['r'], points: curve([[50, 100]], { config: long, engine }) }],
      { width: 800, height: 500 },
    );
    const s = renderSvg(c);
    expect(c.series[0]!.label).toBe(`h200 a-very-long-framework-name-that-will-not-fit fp8 tp8 (simulated)`);
    expect(s).toMatch(/<text x="[\d.]+" y="[\d.]+">h200 a-very[^<]*… \(simulated\)<\/text>/);
    expect(s).toContain('every series simulated');
  });

  it('hidden series are not drawn', () => {
    const c = buildChart([{ label: 'r', runIds: ['r1'], points }], { hidden: [chart.series[0]!.id] });
    expect(renderSvg(c)).not.toContain('<circle');
  });

  it('a straight front stays straight: control points on the line', () => {
    // Collinear knots: every Steffen tangent equals the slope, so control points lie on the line.
    const d = frontPath([0, 30, 60], [0, 15, 30]);
    expect(d).toBe('M0,0C10,5 20,10 30,15C40,20 50,25 60,30');
    expect(frontPath([1], [1])).toBe('');
  });

  it("each run's front in its line style: solid, dashed, dotted (and the legend alike)", () => {
    const side = (runId: string) => ({
      label: runId,
      runIds: [runId],
      points: curve(
        [
          [100, 500],
          [80, 1200],
        ],
        { runId },
      ),
    });
    const c = buildChart([side('a'), side('b'), side('c')], { styleBy: 'config-and-run' });
    const out = renderSvg(c);
    expect(balanced(out)).toBe(true);
    const fronts = [...out.matchAll(/<path class="front" [^>]*>/g)].map((m) => m[0]);
    expect(fronts).toHaveLength(3);
    expect(fronts[0]).not.toContain('stroke-dasharray');
    expect(fronts[1]).toContain('stroke-dasharray="6 4" data-line="dashed"');
    expect(fronts[2]).toContain('data-line="dotted"');
    expect(new Set(fronts.map((f) => /stroke="([^"]+)"/.exec(f)?.[1])).size).toBe(1);
    expect(out.match(/<line [^>]*data-line="dotted"/g)).toHaveLength(1);
  });
});
