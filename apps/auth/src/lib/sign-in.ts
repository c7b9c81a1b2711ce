import { type Database, findMemberByEmail, type PublicMember } from '@contacts/db';
import type { Audit } from './audit';
import { authenticateMember } from './members';
import type { SignInGuard } from './sign-in-guard';

export type SignInOutcome =
  | { ok: true; member: PublicMember }
  | { ok: false; status: 401 | 429; message: string; retryAfter?: number };

const WRONG_CREDENTIALS = 'The e-mail address or password is not correct.';

/**
 * One sign-in attempt, the same for the settings pages and an authorization request: throttled
 * per account and per address, audited, and with one answer for an unknown e-mail and a wrong
 * password (and the same work done for both, see authenticateMember).
 */
export async function attemptSignIn(
  deps: { db: Database; guard: SignInGuard; audit: Audit },
  input: { email: string; password: string; ip: string },
): Promise<SignInOutcome> {
  const { db, guard, audit } = deps;
  const retryAfter = await guard.retryAfter(input.email, input.ip);
  if (retryAfter !== undefined) {
    const known = await findMemberByEmail(db, input.email.trim());
    await audit('sign_in.throttled', { memberId: known?.id, ip: input.ip });
    const minutes = Math.ceil(retryAfter / 60);
    return {
      ok: false,
      status: 429,
      message: `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      retryAfter,
    };
  }
  const member = input.email && input.password ? await authenticateMember(db, input.email, input.password) : undefined;
  if (!member) {
    await guard.failed(input.email, input.ip);
    const known = input.email ? await findMemberByEmail(db, input.email.trim()) : undefined;
    await audit('sign_in.failed', { memberId: known?.id, ip: input.ip });
    return { ok: false, status: 401, message: WRONG_CREDENTIALS };
  }
  await guard.succeeded(input.email);
  await audit('sign_in.succeeded', { memberId: member.id, ip: input.ip });
  return { ok: true, member };
}
