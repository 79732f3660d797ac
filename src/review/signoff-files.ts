import { readFileSync } from 'node:fs';
import type { SignoffReport } from '../schema/signoff.ts';
import { parseCodeowners } from './codeowners.ts';
import { ReviewError } from './errors.ts';
import { formatVerdict, verifySignoff } from './signoff.ts';

/** `infx signoff verify`'s files read, each failure naming the file. */

function read(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ReviewError(
      `cannot read the ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

function teamsOf(file: string): Map<string, string[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(read(file, 'teams file'));
  } catch (err) {
    if (err instanceof ReviewError) throw err;
    throw new ReviewError(`${file} is not JSON: ${(err as Error).message}`);
  }
  const ok =
    doc !== null &&
    typeof doc === 'object' &&
    !Array.isArray(doc) &&
    Object.values(doc).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'));
  if (!ok)
    throw new ReviewError(`${file}: give an object of team → list of logins, e.g. {"@org/core": ["alice"]}`);
  return new Map(Object.entries(doc as Record<string, string[]>));
}

export function verifySignoffFiles(f: {
  comment: string;
  checklist: string;
  codeowners: string;
  author: string;
  changedFiles: string[];
  teams?: string | undefined;
  sha?: string | undefined;
}): { report: SignoffReport; text: string } {
  const report = verifySignoff({
    comment: read(f.comment, 'comment'),
    checklist: read(f.checklist, 'checklist'),
    rules: parseCodeowners(read(f.codeowners, 'CODEOWNERS file'), f.codeowners),
    author: f.author,
    changedFiles: f.changedFiles,
    teams: f.teams === undefined ? undefined : teamsOf(f.teams),
    sha: f.sha,
  });
  return { report, text: formatVerdict(report) };
}
