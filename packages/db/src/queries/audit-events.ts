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

/** A member's latest events, newest first, each with its application's name when it is a registered one. */
export async function listAuditEventsOf(
  db: Database,
  memberId: number,
  limit = SECURITY_LOG_LENGTH,
): Promise<Array<AuditEventRow & { client_name: string | null }>> {
  return db('audit_events as a')
    .leftJoin('oauth_clients as c', 'c.client_id', 'a.client_id')
    .where({ 'a.member_id': memberId })
    .orderBy('a.id', 'desc')
    .limit(limit)
    .select('a.*', 'c.name as client_name');
}
