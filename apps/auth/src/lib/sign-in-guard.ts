import type { Database } from '@contacts/db';
import { RateLimiterPostgres, type RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Brute-force protection for sign-in, on PostgreSQL so that every replica shares the counts:
 * 5 failed attempts on one account lock it for 15 minutes, 50 failures from one IP address in an
 * hour lock that address for an hour. A successful sign-in clears the account's count.
 */
const ACCOUNT = { points: 5, duration: 15 * 60, blockDuration: 15 * 60 };
const ADDRESS = { points: 50, duration: 60 * 60, blockDuration: 60 * 60 };

export interface SignInGuard {
  /** Seconds until this account or address may try again; undefined when it may now. */
  retryAfter(email: string, ip: string): Promise<number | undefined>;
  failed(email: string, ip: string): Promise<void>;
  succeeded(email: string): Promise<void>;
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
  const accountKey = (email: string) => email.trim().toLowerCase();
  const blockedFor = (result: RateLimiterRes | null, points: number) =>
    result && result.consumedPoints >= points ? Math.max(1, Math.ceil(result.msBeforeNext / 1000)) : undefined;

  return {
    async retryAfter(email, ip) {
      const [account, address] = await Promise.all([perAccount.get(accountKey(email)), perAddress.get(ip)]);
      const waits = [blockedFor(account, ACCOUNT.points), blockedFor(address, ADDRESS.points)].filter(
        (wait): wait is number => wait !== undefined,
      );
      return waits.length > 0 ? Math.max(...waits) : undefined;
    },
    async failed(email, ip) {
      // consume() rejects once the limit is passed; the block it records is what retryAfter reads.
      await Promise.allSettled([perAccount.consume(accountKey(email)), perAddress.consume(ip)]);
    },
    async succeeded(email) {
      await perAccount.delete(accountKey(email));
    },
  };
}
