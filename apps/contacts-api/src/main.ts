// First: an unsupported Node.js is refused before anything else loads.
import '@contacts/config/require-supported-node';
import { runServiceProcess, SERVICE_NAMES } from '@contacts/config';
import { databaseFailureForLog, openOwnServiceDatabase } from '@contacts/db';
import { createContactsApi } from './app';
import { loadContactsApiConfig } from './config';

/** The contacts API as its own process (how production runs it). */
await runServiceProcess({
  name: SERVICE_NAMES.contactsApi,
  loadConfig: (env) => loadContactsApiConfig(env, { port: 3002 }),
  describeError: databaseFailureForLog,
  openDatabase: (runtime, logger) => openOwnServiceDatabase(SERVICE_NAMES.contactsApi, runtime, logger),
  createApp: createContactsApi,
});
