import { type Database, isRowId } from '@contacts/db';
import type { Context, Middleware } from 'koa';
import type { Caller } from '../auth/middleware';
import { ApiError } from '../http/errors';

/** What every route module needs. */
export interface RouteDependencies {
  db: Database;
  publicUrl: string;
  /** Middleware requiring a token with read (or write) access. */
  read: Middleware;
  write: Middleware;
  /** The per-token rate limit; a route places it right after its access check. */
  rateLimit: Middleware;
}

export function callerOf(ctx: Context): Caller {
  return ctx.state.caller as Caller;
}

/** A path id: a positive integer, else the resource cannot exist (404). */
export function pathId(ctx: Context, name = 'id'): number {
  const raw = (ctx.params as Record<string, string | undefined>)[name] ?? '';
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!isRowId(id)) throw new ApiError(404, 'not_found', 'Not found.');
  return id;
}
