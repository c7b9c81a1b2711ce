// First: an unsupported Node.js is refused before anything else loads.
import '@contacts/config/require-supported-node';
import { runServiceProcess, SERVICE_NAMES } from '@contacts/config';
import { databaseFailureForLog, openOwnServiceDatabase } from '@contacts/db';
import { createAuthServer } from './app';
import { loadAuthConfig } from './config';

/** The authorization server as its own process (how production runs it). */
await runServiceProcess({
  name: SERVICE_NAMES.auth,
  loadConfig: (env) => loadAuthConfig(env, { port: 3001 }),
  describeError: databaseFailureForLog,
  openDatabase: (runtime, logger) => openOwnServiceDatabase(SERVICE_NAMES.auth, runtime, logger),
  createApp: createAuthServer,
  describeListening: (config) => `issuer ${config.issuer}`,
});
