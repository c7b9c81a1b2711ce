/**
 * Sync tokens and change-feed cursors: base64url of a small JSON object, opaque to clients.
 *
 * A token names a database snapshot (what its holder has seen), the member it was issued to, and
 * when. It carries no signature, on purpose: it grants nothing. A request is authorised by its
 * bearer token, and the feed only ever reads the caller's own contacts; the member id inside a
 * sync token is checked against the caller only to turn a mix-up (another account's token) into
 * a clear 422. A forged or edited token can at most make the caller's own feed report too much
 * (an older snapshot: a larger resync) or too little (a newer snapshot, a later issue time: the
 * forger's own mirror goes stale). Nobody else's data or mirror is reachable, so a secret, and
 * its rotation across replicas, would buy nothing. What is checked is the structure, so that
 * malformed input is a 422 and never reaches PostgreSQL as an invalid pg_snapshot (a 500).
 */
import { isRowId } from '@contacts/db';
import { MAX_LIST_LIMIT } from '@contacts/schemas';

/** What a sync token says. */
export interface SyncToken {
  memberId: number;
  /** A pg_snapshot in text form, `xmin:xmax:xip1,xip2,…`. */
  snapshot: string;
  /** Unix seconds when the snapshot was taken. */
  issuedAt: number;
}

/** Where the next page of a change feed starts, and everything needed to answer it. */
export interface ChangesCursor {
  memberId: number;
  /** The largest id already sent. */
  afterId: number;
  /** The token the last page will hand out, taken when the first page was read. */
  next: { snapshot: string; issuedAt: number };
  /** For an incremental feed: the token it reports changes since; absent for a full listing. */
  since?: { snapshot: string; issuedAt: number };
  /** The page size the feed was asked (absent in cursors of releases before it travelled). */
  limit?: number;
}

/** Longer than any token we issue (a snapshot lists at most max_connections open transactions). */
const MAX_ENCODED_LENGTH = 16_384;
const MAX_XID = (1n << 63n) - 1n;

export function encodeSyncToken(token: SyncToken): string {
  return encode({ k: 't', m: token.memberId, s: token.snapshot, i: token.issuedAt });
}

export function decodeSyncToken(value: string): SyncToken | undefined {
  const raw = decode(value);
  if (raw?.k !== 't' || !isId(raw.m)) return undefined;
  const stamp = snapshotStamp(raw.s, raw.i);
  return stamp ? { memberId: raw.m, ...stamp } : undefined;
}

export function encodeChangesCursor(cursor: ChangesCursor): string {
  return encode({
    k: 'c',
    m: cursor.memberId,
    a: cursor.afterId,
    n: [cursor.next.snapshot, cursor.next.issuedAt],
    ...(cursor.since ? { s: [cursor.since.snapshot, cursor.since.issuedAt] } : {}),
    ...(cursor.limit !== undefined ? { l: cursor.limit } : {}),
  });
}

export function decodeChangesCursor(value: string): ChangesCursor | undefined {
  const raw = decode(value);
  if (raw?.k !== 'c' || !isId(raw.m) || !(raw.a === 0 || isId(raw.a))) return undefined;
  const next = Array.isArray(raw.n) ? snapshotStamp(raw.n[0], raw.n[1]) : undefined;
  if (!next) return undefined;
  const limit = raw.l;
  if (
    limit !== undefined &&
    !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIST_LIMIT)
  )
    return undefined;
  const cursor: ChangesCursor = {
    memberId: raw.m,
    afterId: raw.a as number,
    next,
    ...(limit !== undefined ? { limit } : {}),
  };
  if (raw.s === undefined) return cursor;
  const since = Array.isArray(raw.s) ? snapshotStamp(raw.s[0], raw.s[1]) : undefined;
  return since ? { ...cursor, since } : undefined;
}

/** Whether a token issued at `issuedAt` (unix seconds) has outlived `ttlSeconds` at `now` (ms). */
export function isExpired(issuedAt: number, ttlSeconds: number, now = Date.now()): boolean {
  return now / 1000 - issuedAt > ttlSeconds;
}

/**
 * The checks PostgreSQL's pg_snapshot input applies (xmin and xmax valid ids, xmin <= xmax, every
 * in-progress id within [xmin, xmax) and in ascending order), so that a token passing them never
 * makes the cast fail.
 */
export function isSnapshotText(text: string): boolean {
  const match = /^(\d{1,19}):(\d{1,19}):((?:\d{1,19})(?:,\d{1,19})*)?$/.exec(text);
  if (!match) return false;
  const xmin = BigInt(match[1]!);
  const xmax = BigInt(match[2]!);
  if (!isValidFullXid(xmin) || !isValidFullXid(xmax) || xmin > xmax || xmax > MAX_XID) return false;
  let last = xmin;
  for (const part of match[3] ? match[3].split(',') : []) {
    const xid = BigInt(part);
    if (xid < last || xid >= xmax) return false;
    last = xid;
  }
  return true;
}

/**
 * FullTransactionIdIsValid: a 64-bit id is an epoch (high 32 bits) and a transaction id (low 32
 * bits), and transaction id 0 is invalid in every epoch (4294967296 as much as 0).
 */
function isValidFullXid(xid: bigint): boolean {
  return (xid & 0xffff_ffffn) !== 0n;
}

function snapshotStamp(snapshot: unknown, issuedAt: unknown): { snapshot: string; issuedAt: number } | undefined {
  if (typeof snapshot !== 'string' || !isSnapshotText(snapshot)) return undefined;
  if (typeof issuedAt !== 'number' || !Number.isSafeInteger(issuedAt) || issuedAt < 0) return undefined;
  return { snapshot, issuedAt };
}

const isId = (value: unknown): value is number => typeof value === 'number' && isRowId(value);

function encode(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

function decode(value: string): Record<string, unknown> | undefined {
  if (value.length === 0 || value.length > MAX_ENCODED_LENGTH || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
