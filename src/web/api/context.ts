import type { Store } from '../../store/db.ts';
import type { AvailabilityCache } from '../availability.ts';
import type { RunDirs } from '../run-files.ts';

/** What every API handler gets: the open store, the availability cache, the run directories. */
export interface ApiContext {
  store: Store;
  availability: AvailabilityCache;
  runDirs: RunDirs;
  uiDir: string | null;
}

/** A handler's answer; the server writes it (JSON and text compressed when worth it, files streamed). */
export type ApiResponse =
  | { type: 'json'; body: unknown }
  | { type: 'text'; contentType: string; body: string; headers?: Record<string, string> }
  | { type: 'file'; path: string; contentType: string };

export const json = (body: unknown): ApiResponse => ({ type: 'json', body });
