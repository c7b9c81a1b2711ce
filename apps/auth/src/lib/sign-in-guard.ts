import { createHmac } from 'node:crypto';
import { addressKey } from '@contacts/config';
import { type Database, findSignInMember } from '@contacts/db';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Brute-force protection for sign-in, on PostgreSQL so that every replica shares the counts.
 *
 * - 5 failed attempts on one account **from one address** (an IPv6 address's /64, see addressKey)
 *   lock the account at that address for 15 minutes. Counting per account alone let anyone lock
 *   any member out with 5 requests every quarter of an hour, from anywhere: now a guesser locks
 *   only themselves out, and the member signs in from their own address.
 * - 100 failed attempts on one account in an hour, from any number of addresses, lock it
 *   everywhere for 15 minutes: guessing spread over many addresses stays bounded (NIST SP 800-63B
 *   §5.2.2: no more than 100 consecutive failed attempts on one account).
 * - 50 failures from one address in an hour lock that address for an hour, whatever accounts it tries.
 *
 * A successful sign-in clears the account's counts (consecutive failures).
 */
const ACCOUNT_AT_ADDRESS = { points: 5, duration: 15 * 60, blockDuration: 15 * 60 };
const ACCOUNT = { points: 100, duration: 60 * 60, blockDuration: 15 * 60 };
const ADDRESS = { points: 50, duration: 60 * 60, blockDuration: 60 * 60 };

const PREFIXES = { accountAtAddress: 'sign_in_account_address', account: 'sign_in_account', address: 'sign_in_ip' };

/**
 * How an attempt names its account in the counts' keys: a member by id, so that nothing typed is
 * kept and every spelling that finds the member (İ, capitals: the lookup's folding) counts
 * against one allowance. An e-mail no member has by an HMAC under a key of this server's
 * (`unknownEmailKey`, derived from the first COOKIE_KEYS): what is typed there may be a password
 * typed into the wrong field, which a plain hash in `rate_limits` (or a backup) would give to a
 * dictionary; and a short hash would let anyone find, offline, an address sharing the bucket of
 * one they ask about, whose lock then said whether that one has an account.
 */
async function accountOf(db: Database, unknownEmailKey: Buffer, typedEmail: string): Promise<string> {
  const email = typedEmail.trim();
  const member = await findSignInMember(db, email);
  if (member) return `member:${member.id}`;
  return `unknown:${createHmac('sha256', unknownEmailKey).update(email.toLowerCase()).digest('base64url')}`;
}

/** The HMAC key of unknown e-mails, its own: derived from the cookie key, not the cookie key itself. */
function unknownEmailKeyFrom(serverSecret: string): Buffer {
  return createHmac('sha256', serverSecret).update('sign-in-guard: unknown e-mail addresses').digest();
}

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
}

/** `serverSecret`: the first of COOKIE_KEYS (the key of unknown e-mails is derived from it). */
export function signInGuard(db: Database, serverSecret: string): SignInGuard {
  const unknownEmailKey = unknownEmailKeyFrom(serverSecret);
  const store = {
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
  };
  const limiters = [
    new RateLimiterPostgres({ ...store, keyPrefix: PREFIXES.accountAtAddress, ...ACCOUNT_AT_ADDRESS }),
    new RateLimiterPostgres({ ...store, keyPrefix: PREFIXES.account, ...ACCOUNT }),
    new RateLimiterPostgres({ ...store, keyPrefix: PREFIXES.address, ...ADDRESS }),
  ] as const;
  /** Each limiter with its key for an attempt. */
  const countsOf = async (email: string, ip: string) => {
    const account = await accountOf(db, unknownEmailKey, email);
    const address = addressKey(ip);
    const [atAddress, perAccount, perAddress] = limiters;
    return [
      { limiter: atAddress, key: `${account}:${address}` },
      { limiter: perAccount, key: account },
      { limiter: perAddress, key: address },
    ] as const;
  };
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
      const counts = await countsOf(email, ip);
      const outcomes = await Promise.all(counts.map(({ limiter, key }) => consumed(limiter, key)));
      if (outcomes.every((outcome) => outcome.allowed)) return undefined;
      // Give back the points of the limiters that did not refuse: only checked passwords count.
      // A refusing one keeps its (past the limit) count, so its block is not renewed.
      await Promise.all(
        counts.map(({ limiter, key }, index) => (outcomes[index]?.allowed ? limiter.reward(key) : undefined)),
      );
      const waits = outcomes.filter((outcome) => !outcome.allowed).map((outcome) => outcome.result.msBeforeNext);
      return Math.max(1, Math.ceil(Math.max(...waits) / 1000));
    },
    async succeeded(email, ip) {
      const [atAddress, account, address] = await countsOf(email, ip);
      await Promise.all([
        atAddress.limiter.delete(atAddress.key),
        account.limiter.delete(account.key),
        address.limiter.reward(address.key),
      ]);
    },
  };
}

/**
 * The operator lifts a member's sign-in locks, at every address (`member unlock`, `member
 * set-password`): otherwise a member locked out (by their own guesses, or by a guesser's
 * hundred) could only wait, whatever the administrator did. The addresses' counts stay.
 */
export async function unlockSignIn(db: Database, memberId: number): Promise<void> {
  const account = `member:${memberId}`;
  await db('rate_limits')
    .where('key', `${PREFIXES.account}:${account}`)
    .orWhere('key', 'like', `${PREFIXES.accountAtAddress}:${account}:%`)
    .delete();
}
