import { describe, expect, it } from 'vitest';
import { runCli, useCliDatabase } from './support';

const cli = useCliDatabase();

describe('pnpm cli janitor', () => {
  it('runs one pass and prints the rows deleted per kind as one JSON document', async () => {
    await cli.database.db.raw(
      `insert into oidc_models (model, id_hash, payload, expires_at)
       select 'RefreshToken', 'cli-' || n, '{}', now() + (case when n <= 3 then interval '-1 hour' else interval '1 hour' end)
       from generate_series(1, 5) n`,
    );
    await cli.database.db('rate_limits').insert([
      { key: 'old', points: 1, expire: Date.now() - 3_600_000 },
      { key: 'current', points: 1, expire: Date.now() + 60_000 },
    ]);

    const run = await runCli(['janitor'], { ...cli.env, AUDIT_RETENTION_DAYS: '30' });

    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.json).toEqual({
      ran: true,
      deleted: {
        oidc_models: 3,
        member_sessions: 0,
        rate_limits: 1,
        audit_events: 0,
        personal_access_tokens: 0,
        contact_tombstones: 0,
        dpop_proofs: 0,
        idempotency_keys: 0,
      },
      duration_ms: expect.any(Number),
    });
    expect(await cli.rowCount('oidc_models')).toBe(2);
    expect(await cli.rowCount('rate_limits')).toBe(1);
  });

  it('warns about a misspelt setting of its own (AUDIT_RETENTON_DAYS), as the services do', async () => {
    const run = await runCli(['janitor'], { ...cli.env, AUDIT_RETENTON_DAYS: '3' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /warning: AUDIT_RETENTON_DAYS is set but is not a setting.*did you mean AUDIT_RETENTION_DAYS\?/,
    );
  });

  it('refuses a malformed AUDIT_RETENTION_DAYS with exit code 2, naming the variable, deleting nothing', async () => {
    await cli.database.db('rate_limits').insert({ key: 'stale', points: 1, expire: Date.now() - 3_600_000 });

    const run = await runCli(['janitor'], { ...cli.env, AUDIT_RETENTION_DAYS: 'a year' });

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/error: AUDIT_RETENTION_DAYS must be an integer/);
    expect(await cli.database.db('rate_limits').where({ key: 'stale' }).first()).toBeDefined();
  });
});
