import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ConfigError, type JanitorMetricsSource, janitorMetrics, janitorSettingsFrom } from '../src/index';

describe('janitor settings', () => {
  it('default to a pass every 600 s and a year of audit events', () => {
    expect(janitorSettingsFrom({})).toEqual({
      intervalSeconds: 600,
      auditRetentionDays: 365,
      syncTokenTtlSeconds: 2_592_000,
    });
  });

  it('read JANITOR_INTERVAL (0 switches the timer off) and AUDIT_RETENTION_DAYS', () => {
    expect(janitorSettingsFrom({ JANITOR_INTERVAL: '0', AUDIT_RETENTION_DAYS: '90' })).toEqual({
      intervalSeconds: 0,
      auditRetentionDays: 90,
      syncTokenTtlSeconds: 2_592_000,
    });
  });

  it.each([
    [{ JANITOR_INTERVAL: 'ten' }, /^JANITOR_INTERVAL must be an integer >= 0, got "ten"$/],
    [{ JANITOR_INTERVAL: '-5' }, /^JANITOR_INTERVAL must be an integer >= 0/],
    [{ JANITOR_INTERVAL: '9999999' }, /^JANITOR_INTERVAL must be an integer <= 2147483/],
    // More digits than a number holds exactly: too large, said as such (it said ">= 0").
    [
      { JANITOR_INTERVAL: '99999999999999999999' },
      /^JANITOR_INTERVAL must be an integer <= 2147483, got "99999999999999999999"$/,
    ],
    [{ AUDIT_RETENTION_DAYS: '0' }, /^AUDIT_RETENTION_DAYS must be an integer >= 1, got "0"$/],
    [{ AUDIT_RETENTION_DAYS: '1.5' }, /^AUDIT_RETENTION_DAYS must be an integer >= 1/],
    [{ SYNC_TOKEN_TTL: 'a month' }, /^SYNC_TOKEN_TTL must be an integer >= 60/],
  ])('refuse %o with a message naming the variable', (env, message) => {
    expect(() => janitorSettingsFrom(env)).toThrow(ConfigError);
    expect(() => janitorSettingsFrom(env)).toThrow(message);
  });
});

describe('janitor metrics', () => {
  it('count deleted rows per kind and passes per outcome, and report the estimated table sizes', async () => {
    const listeners: Array<Parameters<JanitorMetricsSource['onPass']>[0]> = [];
    const registry = new Registry();
    janitorMetrics(registry, {
      kinds: ['oidc_models', 'audit_events'],
      onPass: (listener) => listeners.push(listener),
      tableRows: async () => ({ oidc_models: 1234, audit_events: 56 }),
    });
    for (const listener of listeners) {
      listener({ outcome: 'ran', deleted: { oidc_models: 7, audit_events: 0 } });
      listener({ outcome: 'ran', deleted: { oidc_models: 3, audit_events: 2 } });
      listener({ outcome: 'skipped', deleted: { oidc_models: 0, audit_events: 0 } });
    }

    const text = await registry.metrics();

    expect(text).toContain('janitor_rows_deleted_total{kind="oidc_models"} 10');
    expect(text).toContain('janitor_rows_deleted_total{kind="audit_events"} 2');
    expect(text).toContain('janitor_passes_total{outcome="ran"} 2');
    expect(text).toContain('janitor_passes_total{outcome="skipped"} 1');
    expect(text).toContain('janitor_passes_total{outcome="failed"} 0');
    expect(text).toContain('db_table_rows_estimated{table="oidc_models"} 1234');
    expect(text).toContain('db_table_rows_estimated{table="audit_events"} 56');
  });
});
