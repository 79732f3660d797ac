import { describe, expect, it } from 'vitest';
import { GOLDEN_AL, goldenAcceptanceLength, recipeSpec } from './golden-al.ts';

describe('golden acceptance lengths (client-metrics-spec §6)', () => {
  it('holds the full table: 1..8 draft tokens per model and method', () => {
    for (const methods of Object.values(GOLDEN_AL))
      for (const modes of Object.values(methods))
        for (const values of Object.values(modes)) expect(values).toHaveLength(8);
    expect(GOLDEN_AL['deepseek-v4-pro']?.MTP?.thinking_off).toEqual([
      1.92, 2.61, 2.97, 3.0, 3.1, 3.16, 3.0, 3.11,
    ]);
    expect(GOLDEN_AL['minimax-m3']?.EAGLE3?.thinking_on?.[7]).toBe(3.74);
  });

  it('looks up by config model prefix, as the recipes pin them at 3 draft tokens', () => {
    expect(goldenAcceptanceLength('dsv4', 'MTP', 3)).toBe(2.49);
    expect(goldenAcceptanceLength('glm5.2', 'MTP', 3)).toBe(2.99);
    expect(goldenAcceptanceLength('qwen3.5', 'MTP', 3)).toBe(3.39);
    expect(goldenAcceptanceLength('minimaxm3', 'EAGLE3-GQA', 3)).toBe(2.78);
    expect(goldenAcceptanceLength('minimaxm3', 'EAGLE3', 3)).toBe(2.83);
    expect(goldenAcceptanceLength('kimik3', 'DSpark', 3)).toBe(2.87);
    expect(goldenAcceptanceLength('dsv4dspark', 'DSpark', 8)).toBe(3.47);
    expect(goldenAcceptanceLength('deepseek-v4-pro', 'MTP', 1)).toBe(1.79);
  });

  it('knows thinking off only where it was measured', () => {
    expect(goldenAcceptanceLength('dsv4', 'MTP', 2, false)).toBe(2.61);
    expect(goldenAcceptanceLength('qwen3.5', 'MTP', 2, false)).toBeNull();
  });

  it('returns null for what the table does not hold', () => {
    expect(goldenAcceptanceLength('dsr1', 'MTP', 3)).toBeNull();
    expect(goldenAcceptanceLength('unknown', 'MTP', 3)).toBeNull();
    expect(goldenAcceptanceLength('dsv4', 'DSpark', 3)).toBeNull();
    expect(goldenAcceptanceLength('dsv4', 'MTP', 0)).toBeNull();
    expect(goldenAcceptanceLength('dsv4', 'MTP', 9)).toBeNull();
    expect(goldenAcceptanceLength('dsv4', 'MTP', 2.5)).toBeNull();
    expect(goldenAcceptanceLength('constructor', 'MTP', 3)).toBeNull();
  });

  it("names each model's drafting method in the reference recipes", () => {
    expect(recipeSpec('dsv4')).toEqual({ method: 'MTP' });
    expect(recipeSpec('minimaxm3')).toEqual({
      method: 'EAGLE3-GQA',
      draftModel: 'Inferact/MiniMax-M3-EAGLE3-GQA',
    });
    expect(recipeSpec('kimik3').method).toBe('DSpark');
  });
});
