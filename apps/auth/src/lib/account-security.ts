import { createHash } from 'node:crypto';
import {
  type Database,
  deleteBrowserSessionOf,
  deleteBrowserSessions,
  findMemberById,
  findMemberRecord,
  listBrowserSessionsOf,
  revokeEverythingOf,
  updateMemberPasswordHash,
} from '@contacts/db';
import { requireAcceptablePassword } from './password-policy';
import { hashSecret, verifySecret } from './passwords';
import { type SignInGuard, unlockSignIn } from './sign-in-guard';
import { InputError } from './validation';

/** A browser session as the member sees it; `handle` names it in forms without revealing its key. */
export interface BrowserSession {
  handle: string;
  current: boolean;
  createdAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  ip: string | null;
}

const handleOf = (idHash: string) =>
  createHash('sha256').update(`session-handle:${idHash}`).digest('base64url').slice(0, 22);

export async function listBrowserSessions(
  db: Database,
  memberId: number,
  currentIdHash: string | undefined,
): Promise<BrowserSession[]> {
  return (await listBrowserSessionsOf(db, memberId)).map((row) => ({
    handle: handleOf(row.id_hash),
    current: row.id_hash === currentIdHash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    userAgent: row.user_agent,
    ip: row.ip,
  }));
}

/** Ends one of the member's sessions; returns whether it was this browser's. */
export async function signOutBrowserSession(
  db: Database,
  memberId: number,
  handle: unknown,
  currentIdHash: string | undefined,
): Promise<{ current: boolean }> {
  const match = (await listBrowserSessionsOf(db, memberId)).find((row) => handleOf(row.id_hash) === handle);
  if (!match || !(await deleteBrowserSessionOf(db, memberId, match.id_hash))) {
    throw new InputError('No such session (it may have ended already).', 'session');
  }
  return { current: match.id_hash === currentIdHash };
}

/**
 * Ends every session of the member but this browser's (a member who sees a session they do not
 * know, or left a shared computer signed in); returns how many ended.
 */
export function signOutOtherBrowserSessions(db: Database, memberId: number, currentIdHash: string): Promise<number> {
  return db.transaction((trx) => deleteBrowserSessions(trx, memberId, { except: currentIdHash }));
}

export interface PasswordChange {
  memberId: number;
  currentPassword: unknown;
  newPassword: unknown;
  /** Also revoke every token and consent (personal tokens and applications alike). */
  revokeTokens: boolean;
  /** This browser's session, which stays signed in. */
  keepSessionIdHash: string;
  ip: string;
}

/**
 * Changes the member's password: the current one is required (failures count against the
 * sign-in throttle, so this is no way around it), the new one must pass the password policy.
 * Every other browser session is signed out, and with `revokeTokens` every token too, in the
 * same transaction as the new hash.
 */
/** Refused because the sign-in lock holds (429, as the sign-in page answers it), with its wait. */
export class TooManyAttempts extends InputError {
  constructor(readonly retryAfter: number) {
    const minutes = Math.ceil(retryAfter / 60);
    super(`Too many wrong passwords. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, 'current_password');
  }
}

export async function changePassword(
  db: Database,
  guard: SignInGuard,
  change: PasswordChange,
): Promise<{ otherSessionsEnded: number }> {
  const member = await findMemberById(db, change.memberId);
  if (!member) throw new InputError('No such member.', 'member');
  const current = typeof change.currentPassword === 'string' ? change.currentPassword : '';
  // Nothing entered is no guess: it is not counted towards the lock.
  if (current === '') throw new InputError('Enter your current password.', 'current_password');
  // Counted before the (slow) check, like a sign-in: parallel guesses get no more tries.
  const retryAfter = await guard.beginAttempt(member.email, change.ip);
  if (retryAfter !== undefined) throw new TooManyAttempts(retryAfter);
  if (!(await verifySecret(member.password_hash, current))) {
    throw new InputError('The current password is not correct.', 'current_password');
  }
  await guard.succeeded(member.email, change.ip);
  const next = requireAcceptablePassword(change.newPassword, 'new_password');
  if (next === current) throw new InputError('The new password must differ from the current one.', 'new_password');
  const otherSessionsEnded = await storePassword(db, member.id, await hashSecret(next), {
    revokeTokens: change.revokeTokens,
    keepSessionIdHash: change.keepSessionIdHash,
  });
  if (otherSessionsEnded === undefined) throw new InputError('No such member.', 'member');
  return { otherSessionsEnded };
}

/**
 * An operator's reset (`member set-password`): the new password must pass the password policy;
 * every browser session of the member is signed out (a reset is what follows a lost or stolen
 * password, so a session opened with the old one must not outlive it), and with `revokeTokens`
 * every token too, in the same transaction as the new hash; a sign-in lock on the account (from
 * guesses at the old password) is lifted, so the new one works at once. Returns how many
 * sessions ended; undefined when there is no such member.
 */
export async function resetPassword(
  db: Database,
  reset: { memberId: number; newPassword: unknown; revokeTokens: boolean },
): Promise<{ sessionsEnded: number } | undefined> {
  const hash = await hashSecret(requireAcceptablePassword(reset.newPassword, 'password'));
  const sessionsEnded = await storePassword(db, reset.memberId, hash, { revokeTokens: reset.revokeTokens });
  if (sessionsEnded === undefined) return undefined;
  // The new password must work at once: a lock from guesses at the old one is lifted.
  // Disabled or not: a member enabled later must not find the lock still there.
  const member = await findMemberRecord(db, reset.memberId);
  if (member) await unlockSignIn(db, member.id);
  return { sessionsEnded };
}

/** The new hash, the sessions signed out (but the one kept) and the tokens revoked, at once. */
function storePassword(
  db: Database,
  memberId: number,
  hash: string,
  options: { revokeTokens: boolean; keepSessionIdHash?: string },
): Promise<number | undefined> {
  return db.transaction(async (trx) => {
    if (!(await updateMemberPasswordHash(trx, memberId, hash))) return undefined;
    const ended = await deleteBrowserSessions(trx, memberId, { except: options.keepSessionIdHash });
    if (options.revokeTokens) await revokeEverythingOf(trx, memberId);
    return ended;
  });
}
