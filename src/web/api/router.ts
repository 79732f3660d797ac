import { AgenticPointsQuerySchema } from '../../schema/agentic-curve.ts';
import { TimelineQuerySchema } from '../../schema/session-timeline.ts';
import {
  CompareQuerySchema,
  ExportQuerySchema,
  FileQuerySchema,
  FiltersQuerySchema,
  PointsQuerySchema,
  RunsQuerySchema,
} from '../../schema/web-api.ts';
import { EvalSamplesQuerySchema, EvalsQuerySchema } from '../../schema/web-evals.ts';
import { resolveFilters } from '../availability.ts';
import { pointsCsv } from '../csv.ts';
import { badRequest, HttpError, notFound, parseQuery } from '../http.ts';
import { agenticPointsOf } from './agentic-points.ts';
import { compareReport, compareSides } from './compare.ts';
import { type ApiContext, type ApiResponse, json } from './context.ts';
import { evalDetail, listEvals } from './evals.ts';
import { selectPoints } from './points.ts';
import { listRuns, pointFile, pointResult, runDetail } from './runs.ts';
import { sessionTimeline } from './timeline.ts';

/** The API's routes: GET (and HEAD) only; every other method is a 405, every other path a 404. */

export const API_ROUTES = [
  'GET /api/health',
  'GET /api/filters',
  'GET /api/points',
  'GET /api/agentic-points',
  'GET /api/export.csv',
  'GET /api/runs',
  'GET /api/runs/:id',
  'GET /api/runs/:id/points/:pointId/result',
  'GET /api/runs/:id/points/:pointId/files/:name',
  'GET /api/runs/:id/points/:pointId/timeline',
  'GET /api/compare',
  'GET /api/compare/points',
  'GET /api/evals',
  'GET /api/runs/:id/points/:pointId/eval',
] as const;

function segments(pathname: string): string[] {
  return pathname
    .slice('/api/'.length)
    .split('/')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw badRequest(`the path segment '${s}' is not valid percent-encoding`);
      }
    });
}

const noQuery = (params: URLSearchParams) => {
  for (const [key] of params) throw badRequest(`unknown parameter '${key}'; this endpoint takes none`, key);
};

export async function routeApi(
  ctx: ApiContext,
  method: string,
  pathname: string,
  params: URLSearchParams,
): Promise<ApiResponse> {
  if (method !== 'GET' && method !== 'HEAD')
    throw new HttpError(405, 'method-not-allowed', `${method} is not allowed: the API is read-only (GET)`);
  const s = segments(pathname.endsWith('/') ? pathname.slice(0, -1) : pathname);
  const [head, id, sub, pointId, kind, name, ...rest] = s;
  switch (head) {
    case 'health':
      if (s.length !== 1) break;
      noQuery(params);
      return json({ ok: true, db: ctx.store.url, ui: ctx.uiDir !== null, runsDirs: [...ctx.runDirs.roots] });
    case 'filters':
      if (s.length !== 1) break;
      return json(resolveFilters(await ctx.availability.get(), parseQuery(FiltersQuerySchema, params)));
    case 'points':
      if (s.length !== 1) break;
      return json(await selectPoints(ctx, parseQuery(PointsQuerySchema, params)));
    case 'agentic-points':
      if (s.length !== 1) break;
      return json(await agenticPointsOf(ctx, parseQuery(AgenticPointsQuerySchema, params)));
    case 'export.csv': {
      if (s.length !== 1) break;
      const q = parseQuery(ExportQuerySchema, params);
      const points = await selectPoints(ctx, q);
      return {
        type: 'text',
        contentType: 'text/csv; charset=utf-8',
        body: pointsCsv(points, q.price ?? null),
        headers: { 'content-disposition': 'attachment; filename="infx-points.csv"' },
      };
    }
    case 'evals':
      if (s.length !== 1) break;
      return json(await listEvals(ctx, parseQuery(EvalsQuerySchema, params)));
    case 'compare':
      if (s.length === 1) return json(await compareReport(ctx, parseQuery(CompareQuerySchema, params)));
      if (s.length === 2 && id === 'points')
        return json(await compareSides(ctx, parseQuery(CompareQuerySchema, params)));
      break;
    case 'runs':
      if (s.length === 1) return json(await listRuns(ctx, parseQuery(RunsQuerySchema, params).status));
      if (id === undefined || id === '') break;
      if (s.length === 2) {
        noQuery(params);
        return json(await runDetail(ctx, id));
      }
      if (sub !== 'points' || pointId === undefined || rest.length > 0) break;
      if (s.length === 5 && kind === 'result') {
        noQuery(params);
        return pointResult(ctx, id, pointId);
      }
      if (s.length === 5 && kind === 'eval')
        return json(await evalDetail(ctx, id, pointId, parseQuery(EvalSamplesQuerySchema, params)));
      if (s.length === 5 && kind === 'timeline')
        return json(await sessionTimeline(ctx, id, pointId, parseQuery(TimelineQuerySchema, params)));
      if (s.length === 6 && kind === 'files' && name !== undefined)
        return pointFile(ctx, id, pointId, name, parseQuery(FileQuerySchema, params).attempt);
      break;
  }
  throw notFound(`no API endpoint ${pathname}; the API has: ${API_ROUTES.map((r) => r.slice(4)).join(', ')}`);
}
