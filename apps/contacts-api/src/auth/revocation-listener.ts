import type { Logger } from '@contacts/config';
import {
  type Database,
  listenForNotifications,
  type NotificationListener,
  readTokenRevocationNotice,
  TOKEN_REVOCATION_CHANNEL,
} from '@contacts/db';

/**
 * Follows the authorization server's revocation announcements (PostgreSQL NOTIFY on
 * TOKEN_REVOCATION_CHANNEL, payload {"token_hashes": [...]}) and
 * tells the cache what to forget.
 */
export interface RevocationHandlers {
  /** Forget these token hashes. */
  revoke(hashes: readonly string[]): void;
  /** Forget everything: a notice we cannot map to hashes, or notices we may have missed. */
  revokeAll(): void;
}

export function listenForRevocations(db: Database, handlers: RevocationHandlers, logger: Logger): NotificationListener {
  return listenForNotifications(db, {
    channel: TOKEN_REVOCATION_CHANNEL,
    onNotification(payload) {
      const hashes = readTokenRevocationNotice(payload);
      if (!hashes) {
        logger.warn('unreadable token revocation notice; forgetting every cached token');
        handlers.revokeAll();
      } else if (hashes.length > 0) handlers.revoke(hashes);
    },
    onStateChange(listening, error) {
      // Whatever was announced while we were not listening is lost: start from nothing.
      handlers.revokeAll();
      if (listening) logger.info('listening for token revocations');
      else logger.warn({ err: error }, 'token revocation listener down; introspecting every request until it is back');
    },
  });
}
