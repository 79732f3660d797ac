import { describe, expect, it } from 'vitest';
import type { FiltersResponse } from '../../schema/web-api.ts';
import { DEFAULT_STATE, parseState, selectionParams, snapState, stateQuery } from './state.ts';

const selection = (over: Partial<FiltersResponse['selection']> = {}): FiltersResponse['selection'] => ({
  status: 'official',
  run: null,
  model: 'llama8b',
  isl: 1024,
  osl: 1024,
  precision: ['fp8'],
  hardware: [],
  framework: ['vllm'],
  ...over,
});

describe('the inference view state', () => {
  it('round-trips through the URL, defaults left out', () => {
    const q =
      'status=unofficial&model=llama8b&isl=1024&osl=1024&precision=fp4,fp8&x=ttft&y=cost&stat=p90&log=1&price=2.5';
    const s = parseState(`?${q}`);
    expect(s).toMatchObject({ x: 'ttft', y: 'cost', stat: 'p90', log: true, front: false, price: 2.5 });
    expect(stateQuery(s)).toBe(q);
    expect(stateQuery(parseState(''))).toBe('');
  });

  it('offers the statistics the dashboard offers: p99 (an analysis statistic) falls back to the default', () => {
    expect(parseState('?stat=p99').stat).toBe(DEFAULT_STATE.stat);
    expect(parseState('?stat=median').stat).toBe('median');
  });

  it("asks for the server's selection, by status only when no run is chosen", () => {
    expect(selectionParams(selection())).toMatchObject({ status: 'official', run: null, model: 'llama8b' });
    expect(selectionParams(selection({ run: 'r1' }))).toMatchObject({ status: undefined, run: 'r1' });
  });

  it('snaps explicit choices to the selection and leaves unset ones unset', () => {
    const s = parseState('?model=gone&precision=fp4');
    snapState(s, selection());
    expect(s).toMatchObject({ model: 'llama8b', precision: ['fp8'], hardware: [] });
    expect([s.status, s.run, s.isl, s.osl]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
