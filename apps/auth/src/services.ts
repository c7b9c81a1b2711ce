import type { Logger } from '@contacts/config';
import type { Database } from '@contacts/db';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { Audit } from './lib/audit';
import type { MemberSessions } from './lib/member-sessions';
import type { PersonalTokens } from './lib/personal-tokens';
import type { SignInGuard } from './lib/sign-in-guard';
import type { ClientDirectory } from './provider/client-directory';

/** What the auth app's routes work with, built once in createAuthServer. */
export interface AuthServices {
  db: Database;
  provider: Provider;
  personalTokens: PersonalTokens;
  audit: Audit;
  signInGuard: SignInGuard;
  logger: Logger;
  /** The registered applications as the provider reads them; forget one after changing it. */
  clients: ClientDirectory;
  /** The member's sign-in to the pages. */
  memberSessions: MemberSessions;
  /** The CSRF state of the member's pages (http/csrf.ts); each page router uses it. */
  csrf: Middleware;
}
