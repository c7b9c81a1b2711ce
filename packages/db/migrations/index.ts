import type { Knex } from 'knex';
import * as foundation from './20261122000000_foundation';
import * as security from './20261122020000_security';
import * as memberDisabling from './20261123000000_member_disabling';

/** Every migration, in order. Listed here so that they load the same way under tsx, vitest and a bundle. */
export const migrations: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261122000000_foundation', migration: foundation },
  { name: '20261122020000_security', migration: security },
  { name: '20261123000000_member_disabling', migration: memberDisabling },
];
