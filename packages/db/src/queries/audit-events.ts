import type { Database } from '../connection';

export interface AuditEventRow {
  id: number;
  member_id: number | null;
  event: string;
  client_id: string | null;
  ip: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export type NewAuditEvent = Pick<AuditEventRow, 'member_id' | 'event' | 'client_id' | 'ip' | 'details'>;

export async function insertAuditEvent(db: Database, event: NewAuditEvent): Promise<void> {
  await db('audit_events').insert({ ...event, details: JSON.stringify(event.details) });
}

/** How many of a member's latest events their security log shows. */
export const SECURITY_LOG_LENGTH = 100;

/** A security event with the names a member knows its application and token by, where they still exist. */
export type NamedAuditEventRow = AuditEventRow & { client_name: string | null; token_name: string | null };

/**
 * A member's latest events, newest first, each with its application's name when it is a registered
 * one and its personal token's name when it is about one of theirs (`details.token_id`).
 */
export async function listAuditEventsOf(
  db: Database,
  memberId: number,
  limit = SECURITY_LOG_LENGTH,
): Promise<NamedAuditEventRow[]> {
  return db('audit_events as a')
    .leftJoin('oauth_clients as c', 'c.client_id', 'a.client_id')
    .leftJoin('personal_access_tokens as p', (join) =>
      join
        .on('p.member_id', 'a.member_id')
        .andOn(
          'p.id',
          db.raw("case when a.details->>'token_id' ~ '^[0-9]{1,9}$' then (a.details->>'token_id')::int end"),
        ),
    )
    .where({ 'a.member_id': memberId })
    .orderBy('a.id', 'desc')
    .limit(limit)
    .select('a.*', 'c.name as client_name', 'p.name as token_name');
}
