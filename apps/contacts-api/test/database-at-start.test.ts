import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSecrets, secretsEnvironment } from '@contacts/config';
import { describeDatabaseRefusalsAtStart } from '@contacts/db/testing';

/**
 * The service's own entry (what `node dist/main.js` runs in production) on a database it cannot
 * use: one it never will (missing, wrong role or host, not migrated) is refused in one paragraph
 * on stderr with exit code 1 before anything listens; one that is down for now is waited for.
 */
const APP_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

describeDatabaseRefusalsAtStart({
  service: 'contacts-api',
  appDir: APP_DIR,
  productionSecrets: async () => secretsEnvironment(await generateSecrets()),
});
