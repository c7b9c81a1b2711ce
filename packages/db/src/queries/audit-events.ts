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

export async function listAuditEventsOf(db: Database, memberId: number, limit = 100): Promise<AuditEventRow[]> {
  return db<AuditEventRow>('audit_events').where({ member_id: memberId }).orderBy('id', 'desc').limit(limit);
}
