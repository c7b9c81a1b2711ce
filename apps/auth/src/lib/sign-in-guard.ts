import { hash } from 'node:crypto';
import { addressKey } from '@contacts/config';
import { type Database, foldedEmail } from '@contacts/db';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Brute-force protection for sign-in, on PostgreSQL so that every replica shares the counts:
 * 5 failed attempts on one account lock it for 15 minutes, 50 failures from one IP address in an
 * hour lock that address (an IPv6 address's /64, see addressKey) for an hour. A successful sign-in clears the account's count.
 */
const ACCOUNT = { points: 5, duration: 15 * 60, blockDuration: 15 * 60 };
const ADDRESS = { points: 50, duration: 60 * 60, blockDuration: 60 * 60 };

export interface SignInGuard {
  /**
   * Takes one attempt from the account's and the address's allowance, atomically, before the
   * password is checked: of any number of attempts at once, at most the allowance gets checked.
   * Resolves the seconds to wait when either is used up (and then takes nothing from the other),
   * undefined when the attempt may go ahead. A wrong password needs nothing more: its attempt is
   * already counted.
   */
  beginAttempt(email: string, ip: string): Promise<number | undefined>;
  /** The password was right: clears the account's count and gives the address its attempt back. */
  succeeded(email: string, ip: string): Promise<void>;
  /**
   * The operator lifts the account's lock (`member unlock`, `member set-password`): otherwise a
   * member locked out by someone guessing at their address could only wait, whatever the
   * administrator did. The addresses' counts stay as they are.
   */
  unlock(email: string): Promise<void>;
}

export function signInGuard(db: Database): SignInGuard {
  const store = {
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
  };
  const perAccount = new RateLimiterPostgres({ ...store, keyPrefix: 'sign_in_account', ...ACCOUNT });
  const perAddress = new RateLimiterPostgres({ ...store, keyPrefix: 'sign_in_ip', ...ADDRESS });
  // Hashed: whatever was typed (a NUL, 254 characters) makes a key the table can hold
  // (varchar(255), no NUL), and the table does not list who was attacked.
  // [security] Folded as the member lookup folds it (foldedEmail): U+0130 İ lowers to "i" in
  // PostgreSQL and to "i̇" in JavaScript, and each spelling found one member under its own allowance.
  const accountKey = async (email: string) => hash('sha256', await foldedEmail(db, email.trim()), 'base64url');
  /** A refused consume() rejects with the key's state; anything else is the store failing. */
  const consumed = async (limiter: RateLimiterPostgres, key: string) => {
    try {
      return { allowed: true as const, result: await limiter.consume(key) };
    } catch (error) {
      if (error instanceof RateLimiterRes) return { allowed: false as const, result: error };
      throw error;
    }
  };

  return {
    async beginAttempt(email, ip) {
      const key = await accountKey(email);
      const [account, address] = await Promise.all([consumed(perAccount, key), consumed(perAddress, addressKey(ip))]);
      if (account.allowed && address.allowed) return undefined;
      // Give back the point of the limiter that did not refuse: only checked passwords count.
      // The refusing one keeps its (past the limit) count, so its block is not renewed.
      if (account.allowed) await perAccount.reward(key);
      if (address.allowed) await perAddress.reward(addressKey(ip));
      const waits = [account, address].filter((one) => !one.allowed).map((one) => one.result.msBeforeNext);
      return Math.max(1, Math.ceil(Math.max(...waits) / 1000));
    },
    async succeeded(email, ip) {
      await Promise.all([perAccount.delete(await accountKey(email)), perAddress.reward(addressKey(ip))]);
    },
    async unlock(email) {
      await perAccount.delete(await accountKey(email));
    },
  };
}
