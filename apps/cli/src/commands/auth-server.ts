import { type AuthServer, createAuthServer, loadAuthConfig } from '@contacts/auth';
import { createLogger } from '@contacts/config';
import type { CommandContext } from '../cli-context';

/** An in-process authorization server (not listening), for commands that mint tokens through oidc-provider. */
export async function withAuthServer<T>(context: CommandContext, work: (auth: AuthServer) => Promise<T>): Promise<T> {
  // PORT and PUBLIC_URL as `pnpm start` reads them: the issuer of the tokens minted here.
  const config = await loadAuthConfig(context.env, { port: 3000 });
  const logger = createLogger('cli', { ...context.env, LOG_LEVEL: context.env.LOG_LEVEL || 'silent' });
  const auth = await createAuthServer({ db: context.db, config, logger });
  try {
    return await work(auth);
  } finally {
    await auth.close();
  }
}
