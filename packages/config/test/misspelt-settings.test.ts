import { describe, expect, it } from 'vitest';
import { ConfigError, integerFrom } from '../src/env';
import { environmentWith, SettingReads, withMisspellingHints } from '../src/misspelt-settings';
import { serviceRuntimeFrom } from '../src/service-runtime';

/** The misspellings a service reading its runtime settings (and one integer) would report. */
function misspellingsAfterReading(env: NodeJS.ProcessEnv) {
  const reads = new SettingReads(env);
  serviceRuntimeFrom(reads.env);
  integerFrom(reads.env, 'JANITOR_INTERVAL', 600, 0);
  return reads.misspellings();
}

describe('misspelt settings', () => {
  it('names a variable one or two letters from a setting that was read, with the setting it likely meant', () => {
    expect(
      misspellingsAfterReading({
        DATABSE_URL: 'postgres://u:secret@db/x',
        JANITOR_INTERVALL: '0',
        database_url: 'postgres://db/y',
        SHUTDOWN_TIMEUOT: '5',
      }),
    ).toEqual([
      { variable: 'DATABSE_URL', setting: 'DATABASE_URL' },
      { variable: 'JANITOR_INTERVALL', setting: 'JANITOR_INTERVAL' },
      { variable: 'database_url', setting: 'DATABASE_URL' },
      { variable: 'SHUTDOWN_TIMEUOT', setting: 'SHUTDOWN_TIMEOUT' },
    ]);
  });

  it('leaves alone the settings themselves and the variables every machine has', () => {
    expect(
      misspellingsAfterReading({
        DATABASE_URL: 'postgres://db/x',
        JANITOR_INTERVAL: '0',
        HOST: 'example',
        HOSTNAME: 'vm',
        PATH: '/usr/bin',
        HOME: '/root',
        PGPORT: '5432',
        NODE_OPTIONS: '--max-old-space-size=160',
      }),
    ).toEqual([]);
  });

  it('sees the reads made through an environment with some values replaced (pnpm start gives both services one URL)', () => {
    const reads = new SettingReads({ PUBLIC_URLL: 'https://x.example', DB_POOL_MAXX: '3' });
    const env = environmentWith(reads.env, { PUBLIC_URL: 'http://localhost:3000' });
    expect(env.PUBLIC_URL).toBe('http://localhost:3000');
    serviceRuntimeFrom(env);
    expect(reads.misspellings()).toEqual([{ variable: 'DB_POOL_MAXX', setting: 'DB_POOL_MAX' }]);
  });

  it("adds the hint to a refusal that names the setting, and to no other (never the variable's value)", () => {
    const reads = new SettingReads({ DATABSE_URL: 'postgres://u:secret@db/x', DB_POOL_MAX: 'ten' });
    let refusal: unknown;
    try {
      serviceRuntimeFrom(reads.env);
    } catch (error) {
      refusal = withMisspellingHints(error, reads);
    }
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as Error).message).toBe('DB_POOL_MAX must be an integer >= 1, got "ten"');
    const named = withMisspellingHints(new ConfigError('DATABASE_URL must be set in production'), reads) as Error;
    expect(named.message).toBe(
      'DATABASE_URL must be set in production (DATABSE_URL is set: a misspelling of DATABASE_URL?)',
    );
  });
});
