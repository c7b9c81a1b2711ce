import type { Logger } from '@contacts/config';
import { type Database, insertAuditEvent } from '@contacts/db';

/** The security events a member can review at /settings/security. */
export type AuditEventName =
  | 'sign_in.succeeded'
  | 'sign_in.failed'
  | 'sign_in.throttled'
  | 'consent.granted'
  | 'consent.revoked'
  | 'application.created'
  | 'application.updated'
  | 'application.deleted'
  | 'application.secret_rotated'
  | 'personal_token.created'
  | 'personal_token.first_used'
  | 'personal_token.revoked'
  | 'personal_token.reported_leaked'
  | 'password.changed'
  | 'account.disabled'
  | 'account.enabled'
  | 'session.signed_out'
  | 'session.others_signed_out'
  | 'refresh_token.reuse_detected';

export interface AuditEntry {
  memberId?: number | undefined;
  clientId?: string | undefined;
  ip?: string | undefined;
  /** Names and ids only: never a token, secret or password. */
  details?: Record<string, string | number | boolean>;
}

export type Audit = (event: AuditEventName, entry: AuditEntry) => Promise<void>;

/** Records a security event in the audit table and as a structured log line. Never throws. */
export function auditTrail(db: Database, logger: Logger): Audit {
  return async (event, entry) => {
    logger.info(
      { audit: event, member_id: entry.memberId, client_id: entry.clientId, ip: entry.ip, ...entry.details },
      `audit: ${event}`,
    );
    await insertAuditEvent(db, {
      member_id: entry.memberId ?? null,
      event,
      client_id: entry.clientId ?? null,
      ip: entry.ip ?? null,
      details: entry.details ?? {},
    }).catch((error: Error) =>
      logger.error({ err: { message: error.message }, audit: event }, 'audit event not stored'),
    );
  };
}
