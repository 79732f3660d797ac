import { existsSync, readFileSync } from 'node:fs';
import { type CiPriorityPolicy, CiPriorityPolicySchema } from '../schema/ci-priority.ts';
import { ConfigError, errorsOf, issueToDiagnostics } from './diagnostics.ts';
import { parseYaml } from './yaml-source.ts';

/** Loads a CI priority policy file (the reference's `configs/ci-priority.yaml` format). */
export function loadCiPriorityPolicy(file: string): CiPriorityPolicy {
  if (!existsSync(file)) {
    throw new ConfigError(`CI priority policy '${file}' does not exist`, [
      {
        severity: 'error',
        rule: 'file.missing',
        message: `CI priority policy '${file}' does not exist.`,
        file,
        line: null,
        column: null,
        path: [],
      },
    ]);
  }
  const parsed = parseYaml(file, readFileSync(file, 'utf8'));
  const diagnostics = [...parsed.diagnostics];
  const result = CiPriorityPolicySchema.safeParse(parsed.value, { reportInput: true });
  if (!result.success) {
    for (const issue of result.error.issues)
      diagnostics.push(...issueToDiagnostics(issue, { file, source: parsed.source, prefix: [] }));
  }
  if (errorsOf(diagnostics).length > 0 || !result.success) {
    throw new ConfigError(`invalid CI priority policy '${file}'`, diagnostics);
  }
  return result.data;
}
