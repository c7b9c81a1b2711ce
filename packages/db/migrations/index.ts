import type { Knex } from 'knex';
import * as foundation from './20261122000000_foundation';
import * as security from './20261122020000_security';
import * as janitor from './20261123000000_janitor';

/** Every migration, in order. Listed here so that they load the same way under tsx, vitest and a bundle. */
export const migrations: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261122000000_foundation', migration: foundation },
  { name: '20261122020000_security', migration: security },
  { name: '20261123000000_janitor', migration: janitor },
];
