import { type Database, findMemberByEmail, type PublicMember } from '@contacts/db';
import type { Audit } from './audit';
import { checkMemberPassword } from './members';
import type { SignInGuard } from './sign-in-guard';

export type SignInOutcome =
  | { ok: true; member: PublicMember }
  | { ok: false; status: 401 | 403 | 422 | 429; message: string; retryAfter?: number };

const WRONG_CREDENTIALS = 'The e-mail address or password is not correct.';
const MISSING_CREDENTIALS = 'Enter your e-mail address and password.';
const DISABLED = 'This account is disabled. Ask the administrator of this site to enable it again.';

/** PostgreSQL text cannot hold U+0000, so no member's address has one, and a query with it fails. */
const couldBeAMember = (email: string) => !email.includes('\u0000');

/**
 * One sign-in attempt, the same for the settings pages and an authorization request: throttled
 * per account and per address, audited, and with one answer for an unknown e-mail and a wrong
 * password (and the same work done for both, see authenticateMember).
 *
 * The attempt is counted before the password is checked, in one statement per limit (see
 * SignInGuard.beginAttempt): checking first and counting after the (deliberately slow) hash let
 * any number of parallel guesses through. A form without an e-mail or a password is no guess
 * and is not counted.
 */
export async function attemptSignIn(
  deps: { db: Database; guard: SignInGuard; audit: Audit },
  input: { email: string; password: string; ip: string },
): Promise<SignInOutcome> {
  const { db, guard, audit } = deps;
  // Composed (NFC) as addresses are stored: the failed attempts of one address count together.
  const email = input.email.trim().normalize('NFC');
  if (email === '' || input.password === '') return { ok: false, status: 422, message: MISSING_CREDENTIALS };
  const findKnown = async () => (couldBeAMember(email) ? findMemberByEmail(db, email) : undefined);
  const retryAfter = await guard.beginAttempt(email, input.ip);
  if (retryAfter !== undefined) {
    const known = await findKnown();
    await audit('sign_in.throttled', { memberId: known?.id, ip: input.ip });
    const minutes = Math.ceil(retryAfter / 60);
    return {
      ok: false,
      status: 429,
      message: `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      retryAfter,
    };
  }
  const checked = couldBeAMember(email) ? await checkMemberPassword(db, email, input.password) : undefined;
  if (checked?.disabled) {
    // Said only to whoever knows the password: they would otherwise keep trying it.
    await audit('sign_in.failed', { memberId: checked.member.id, ip: input.ip });
    return { ok: false, status: 403, message: DISABLED };
  }
  const member = checked?.member;
  if (!member) {
    const known = await findKnown();
    await audit('sign_in.failed', { memberId: known?.id, ip: input.ip });
    return { ok: false, status: 401, message: WRONG_CREDENTIALS };
  }
  await guard.succeeded(email, input.ip);
  await audit('sign_in.succeeded', { memberId: member.id, ip: input.ip });
  return { ok: true, member };
}
