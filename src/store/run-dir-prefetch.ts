import { Worker } from 'node:worker_threads';
import { ATTEMPT_DIR_PATTERN, type PointSpec } from '../schema/run-dir.ts';
import type { InputIssue } from '../schema/store.ts';
import { type RequestsSummary, summarizeRequests } from './result-checks.ts';
import { type AttemptFiles, type FileSource, RUN_FILES, readPoint } from './run-dir-files.ts';

/**
 * Reading a large run with two threads: a reader thread does the file system calls (readdir, open, read,
 * close: about half the time on a small VM) and streams the points' file texts over, while this thread
 * parses and validates them as they arrive. The reader is a few lines of plain Node given as source
 * (`eval`), so it needs no build step; validation stays here, in one place.
 */

/**
 * What the reader sends per point: its folder's names, each file's text (null: absent; error: why not),
 * result.json compacted as the store keeps it, with its SHA-256 (work kept off the validating thread).
 */
interface Prefetched {
  names: string[];
  files: [path: string, text: string | null | { error: string }][];
  hashes: [path: string, sha256: string][];
  /** requests.jsonl summarized in the reader (its text can be large): null when absent. */
  requests: [path: string, summary: RequestsSummary | null | { error: string }][];
}

// The reader runs the very summarizer this thread would (a self-contained function, given as source).
const READER = () => `
const summarizeRequests = ${summarizeRequests.toString()};
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');
const { dirs, files, attemptDir, batch } = workerData;
const isAttemptDir = new RegExp(attemptDir);
const text = (p) => {
  try { return fs.readFileSync(p, 'utf8'); }
  catch (e) { return e.code === 'ENOENT' ? null : { error: e.message }; }
};
let out = [];
for (const dir of dirs) {
  let names = [];
  try { names = fs.readdirSync(dir); } catch {}
  const got = [[path.join(dir, files.spec), text(path.join(dir, files.spec))]];
  const hashes = [];
  const requests = [];
  for (const n of names) {
    if (!isAttemptDir.test(n)) continue;
    const rp = path.join(dir, n, files.requests);
    const rt = text(rp);
    requests.push([rp, typeof rt === 'string' ? summarizeRequests(rt) : rt]);
    for (const f of files.attempt) {
      const p = path.join(dir, n, f);
      let t = text(p);
      if (f === files.result && typeof t === 'string') {
        // Compacted here, off the validating thread; a file that is not JSON goes over as it is.
        try { t = JSON.stringify(JSON.parse(t)); hashes.push([p, createHash('sha256').update(t).digest('hex')]); } catch {}
      }
      got.push([p, t]);
    }
  }
  out.push({ names, files: got, hashes, requests });
  if (out.length === batch) { parentPort.postMessage(out); out = []; }
}
parentPort.postMessage(out);
parentPort.postMessage(null);
`;

function sourceOf(p: Prefetched): FileSource {
  const files = new Map(p.files);
  const hashes = new Map(p.hashes);
  const requests = new Map(p.requests);
  return {
    requests(path) {
      const r = requests.get(path);
      if (r === undefined || r === null) return undefined;
      if ('error' in r) throw new Error(r.error);
      return r;
    },
    compactsResults: true,
    sha256: (path) => hashes.get(path),
    text(path) {
      const t = files.get(path);
      if (t === undefined || t === null) return undefined;
      if (typeof t === 'object') throw new Error(t.error);
      return t;
    },
    list: () => p.names,
  };
}

export type PointRead = { attempts: AttemptFiles[]; issues: InputIssue[] };

/** readPoint for every (dir, spec), the files read ahead by a reader thread; in order. */
export function readPointsPrefetched(
  dirs: readonly string[],
  specs: readonly PointSpec[],
): Promise<PointRead[]> {
  const read: PointRead[] = [];
  const worker = new Worker(READER(), {
    eval: true,
    workerData: {
      dirs,
      files: {
        spec: RUN_FILES.spec,
        result: RUN_FILES.result,
        requests: RUN_FILES.requests,
        attempt: [RUN_FILES.status, RUN_FILES.point, RUN_FILES.result],
      },
      // The worker's source is plain JavaScript: the layout's names and pattern reach it as data.
      attemptDir: ATTEMPT_DIR_PATTERN.source,
      batch: 100,
    },
  });
  return new Promise<PointRead[]>((resolve, reject) => {
    let failed: unknown;
    worker.on('message', (batch: Prefetched[] | null) => {
      if (batch === null) {
        if (failed === undefined) resolve(read);
        void worker.terminate();
        return;
      }
      try {
        for (const p of batch) {
          const i = read.length;
          read.push(readPoint(dirs[i]!, specs[i]!, sourceOf(p)));
        }
      } catch (err) {
        failed = err;
        reject(err);
        void worker.terminate();
      }
    });
    worker.once('error', reject);
    worker.once('exit', () => {
      if (read.length < dirs.length && failed === undefined)
        reject(
          new Error(
            `the run directory's reader thread stopped after ${read.length} of ${dirs.length} points`,
          ),
        );
    });
  });
}
