import type { ReviewFinding } from '../schema/review.ts';

/** The changelog's byte contract as review findings (filled in with the byte gate). */
export function byteGateFindings(_req: {
  cwd: string;
  baseRef: string;
  headRef: string;
  changelogFile: string;
}): ReviewFinding[] {
  return [];
}
