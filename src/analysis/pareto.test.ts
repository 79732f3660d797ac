import { describe, expect, it } from 'vitest';
import { curvePoint } from '../../test/support/curve-points.ts';
import { hinterland, paretoFrontier, throughputFront, upperLeftFront } from './pareto.ts';

type P = readonly [number, number];
const xy = (p: P) => ({ x: p[0], y: p[1] });
const coords = (front: { x: number; y: number }[]) => front.map((p) => [p.x, p.y]);

describe('paretoFrontier', () => {
  it('client-metrics-spec §10 case 35: maximize both', () => {
    const pts: P[] = [
      [1, 10],
      [2, 8],
      [2, 12],
      [3, 5],
    ];
    // (1, 10) is dominated by (2, 12); (2, 8) is beaten on y by (2, 12).
    expect(coords(paretoFrontier(pts, xy, { x: 'max', y: 'max' }))).toEqual([
      [2, 12],
      [3, 5],
    ]);
  });

  it('minimize x, maximize y (throughput vs latency)', () => {
    const pts: P[] = [
      [1, 100],
      [2, 300],
      [3, 250],
      [4, 500],
      [5, 500],
    ];
    // Sorted by x ascending: (1,100) kept, (2,300) kept, (3,250) no, (4,500) kept, (5,500) not strictly better.
    expect(coords(paretoFrontier(pts, xy, { x: 'min', y: 'max' }))).toEqual([
      [1, 100],
      [2, 300],
      [4, 500],
    ]);
  });

  it('minimize both', () => {
    const pts: P[] = [
      [1, 5],
      [2, 3],
      [3, 4],
      [4, 1],
    ];
    expect(coords(paretoFrontier(pts, xy, { x: 'min', y: 'min' }))).toEqual([
      [1, 5],
      [2, 3],
      [4, 1],
    ]);
  });

  it('merges identical coordinates into one front point holding every observation', () => {
    const pts = [
      { id: 'a', x: 2, y: 12 },
      { id: 'b', x: 2, y: 12 },
      { id: 'c', x: 3, y: 5 },
    ];
    const front = paretoFrontier(pts, (p) => p, { x: 'max', y: 'max' });
    expect(front).toHaveLength(2);
    expect(front[0]?.items.map((p) => p.id)).toEqual(['a', 'b']);
  });

  it('drops non-finite and missing coordinates', () => {
    const pts = [
      { x: Number.NaN, y: 100 },
      { x: 1, y: Number.POSITIVE_INFINITY },
      { x: null, y: 3 },
      { x: 2, y: 4 },
    ];
    expect(coords(paretoFrontier(pts, (p) => p, { x: 'max', y: 'max' }))).toEqual([[2, 4]]);
  });

  it('hinterland flips both directions', () => {
    const pts: P[] = [
      [1, 10],
      [2, 8],
      [2, 12],
      [3, 5],
    ];
    // Minimize both: (1,10) kept, (2,8) kept, (3,5) kept.
    expect(coords(hinterland(pts, xy, { x: 'max', y: 'max' }))).toEqual([
      [1, 10],
      [2, 8],
      [3, 5],
    ]);
  });
});

describe('upperLeftFront', () => {
  it('keeps the larger y per x and a strictly decreasing y', () => {
    const pts: P[] = [
      [10, 500],
      [10, 600],
      [20, 550],
      [30, 550],
      [40, 100],
    ];
    // (10,600) beats (10,500); (20,550) is popped by (30,550) (y ≥ last kept y); (40,100) is pushed.
    expect(coords(upperLeftFront(pts, xy))).toEqual([
      [10, 600],
      [30, 550],
      [40, 100],
    ]);
  });

  it('equals the generic frontier maximizing both, on random clouds', () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 50; trial++) {
      const pts: P[] = Array.from({ length: 30 }, () => [Math.round(rand() * 20), Math.round(rand() * 20)]);
      expect(coords(upperLeftFront(pts, xy))).toEqual(
        coords(paretoFrontier(pts, xy, { x: 'max', y: 'max' })),
      );
    }
  });
});

describe('throughputFront', () => {
  const pts = [
    curvePoint({ conc: 1, intvty: 100, tput: 200, e2elMs: 1000, ttftMs: 50 }),
    curvePoint({ conc: 2, intvty: 90, tput: 350, e2elMs: 1100, ttftMs: 60 }),
    curvePoint({ conc: 4, intvty: 95, tput: 300, e2elMs: 1200, ttftMs: 40 }),
    curvePoint({ conc: 8, intvty: 60, tput: 900, e2elMs: 1900, ttftMs: 90, valid: false }),
  ];

  it('against interactivity: only valid points, y decreasing', () => {
    expect(coords(throughputFront(pts, 'interactivity'))).toEqual([
      [90, 350],
      [95, 300],
      [100, 200],
    ]);
  });

  it('against E2E latency in seconds (lower is better)', () => {
    // (1.2 s, 300) is beaten by (1.1 s, 350).
    expect(coords(throughputFront(pts, 'e2el'))).toEqual([
      [1, 200],
      [1.1, 350],
    ]);
  });

  it('against TTFT (lower is better)', () => {
    // TTFT 40 ms gives 300; 50 ms gives only 200; 60 ms gives 350.
    expect(coords(throughputFront(pts, 'ttft'))).toEqual([
      [40, 300],
      [60, 350],
    ]);
  });

  it('against the p90 interactivity', () => {
    expect(throughputFront(pts, 'interactivity', 'p90').map((p) => p.x)).toEqual([81, 85.5, 90]);
  });
});
