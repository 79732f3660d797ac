import { isDeepStrictEqual } from 'node:util';
import type { MasterConfigs } from '../config/load.ts';
import type { ChangelogEntry } from '../schema/changelog-entry.ts';
import { SCENARIO_TYPES, type ScenarioType } from '../schema/enums.ts';
import { ChangelogError } from './errors.ts';
import { resolveChangelogKeys } from './keys.ts';

/**
 * The append-only scope check at the master-config level (changelog-pr-spec §2.5 step 3): an append-only
 * change may touch only the scenarios its entries select. Changes inside a selected scenario are judged
 * later, on the generated rows (append-only.ts).
 */

type Raw = Record<string, unknown>;

const scenariosOf = (entry: unknown): Raw => {
  const sc = (entry as Raw | undefined)?.scenarios;
  return sc !== null && typeof sc === 'object' && !Array.isArray(sc) ? (sc as Raw) : {};
};

const withoutScenarios = (entry: unknown): Raw => {
  const { scenarios: _, ...rest } = (entry ?? {}) as Raw;
  return rest;
};

export function checkAppendOnlyScope(
  entries: readonly ChangelogEntry[],
  base: MasterConfigs,
  head: MasterConfigs,
): void {
  const available = head.entries.map((e) => e.key);
  const selected = new Map<string, Set<ScenarioType>>();
  for (const entry of entries) {
    const scope = entry['scenario-type'] ?? SCENARIO_TYPES;
    for (const key of resolveChangelogKeys(entry['config-keys'], available)) {
      const s = selected.get(key) ?? new Set<ScenarioType>();
      for (const t of scope) s.add(t);
      selected.set(key, s);
    }
  }
  const keys = [...new Set([...base.entries.map((e) => e.key), ...available])];
  const changedOutside = keys.filter(
    (k) => !selected.has(k) && !isDeepStrictEqual(base.byKey.get(k)?.entry, head.byKey.get(k)?.entry),
  );
  if (changedOutside.length > 0)
    throw new ChangelogError(
      `append-only PR changed configs not selected by its changelog entry: [${changedOutside.map((k) => `'${k}'`).join(', ')}]`,
    );
  for (const [key, scope] of selected) {
    const before = base.byKey.get(key)?.entry;
    const after = head.byKey.get(key)?.entry;
    const sb = scenariosOf(before);
    const sa = scenariosOf(after);
    const kinds = (s: Raw) => Object.keys(s).sort();
    if (!isDeepStrictEqual(kinds(sb), kinds(sa)))
      throw new ChangelogError(`append-only added or removed a scenario in config '${key}'`);
    const outside = kinds(sa).filter((s) => !scope.has(s as ScenarioType));
    if (outside.length > 0 && !isDeepStrictEqual(withoutScenarios(before), withoutScenarios(after)))
      throw new ChangelogError(
        `append-only changed config-wide fields that can affect scenarios outside its changelog scope: '${key}'`,
      );
    for (const s of outside)
      if (!isDeepStrictEqual(sb[s], sa[s]))
        throw new ChangelogError(
          `append-only changed a scenario outside its changelog scope: '${key}' / '${s}'`,
        );
  }
}
