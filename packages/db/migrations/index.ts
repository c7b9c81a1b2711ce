import type { Knex } from 'knex';
import * as foundation from './20261122000000_foundation';
import * as security from './20261122020000_security';
import * as senderConstraints from './20261123000000_sender_constraints';
import * as changeFeed from './20261123010000_change_feed';
import * as janitor from './20261123020000_janitor';
import * as memberDisabling from './20261123030000_member_disabling';
import * as clientChangeNotices from './20261123040000_client_change_notices';
import * as creationFormIds from './20261124000000_creation_form_ids';
import * as idempotencyKeys from './20261125000000_idempotency_keys';
import * as groupGuestOrder from './20261126000000_group_guest_order';
import * as personalTokenGrantExpiry from './20261127000000_personal_token_grant_expiry';

/** Every migration, in order. Listed here so that they load the same way under tsx, vitest and a bundle. */
export const migrations: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261122000000_foundation', migration: foundation },
  { name: '20261122020000_security', migration: security },
  { name: '20261123000000_sender_constraints', migration: senderConstraints },
  { name: '20261123010000_change_feed', migration: changeFeed },
  { name: '20261123020000_janitor', migration: janitor },
  { name: '20261123030000_member_disabling', migration: memberDisabling },
  { name: '20261123040000_client_change_notices', migration: clientChangeNotices },
  { name: '20261124000000_creation_form_ids', migration: creationFormIds },
  { name: '20261125000000_idempotency_keys', migration: idempotencyKeys },
  { name: '20261126000000_group_guest_order', migration: groupGuestOrder },
  { name: '20261127000000_personal_token_grant_expiry', migration: personalTokenGrantExpiry },
];
