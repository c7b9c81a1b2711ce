import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger';

/** Collects what a logger writes, line by line. */
function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

describe('createLogger', () => {
  it('writes one readable line per event for a terminal, still without secrets', () => {
    const { stream, lines } = capture();
    const logger = createLogger('platform', { LOG_LEVEL: 'info' }, stream, true);
    logger.info({ service: 'auth', user: { password: 'hunter2' } }, 'started');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(platform\): started \{.*"service":"auth"/);
    expect(lines[0]).not.toContain('hunter2');
    expect(lines[0]).toContain('[redacted]');
  });

  it('redacts an authorization code but keeps an error code, both named `code`', () => {
    const { stream, lines } = capture();
    const logger = createLogger('platform', { LOG_LEVEL: 'info' }, stream, false);
    const authorizationCode = 'x8Yq0Vd3-kLmN_7pQrStUvWxYz0123456789abcdEF';
    logger.info({ params: { code: authorizationCode } }, 'token request');
    logger.warn({ err: { code: 'ECONNREFUSED' }, db: { code: '57P01' }, res: { code: 503 } }, 'database down');
    expect(lines[0]).not.toContain(authorizationCode);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ params: { code: '[redacted]' } });
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({
      err: { code: 'ECONNREFUSED' },
      db: { code: '57P01' },
      res: { code: 503 },
    });
  });

  it('writes JSON lines when the output is not a terminal', () => {
    const { stream, lines } = capture();
    createLogger('platform', { LOG_LEVEL: 'info' }, stream, false).info({ service: 'auth' }, 'started');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ name: 'platform', msg: 'started', service: 'auth', level: 30 });
  });

  it('writes JSON lines in production even on a terminal', () => {
    const { stream, lines } = capture();
    createLogger('platform', { NODE_ENV: 'production', LOG_LEVEL: 'info' }, stream, true).info('started');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ name: 'platform', msg: 'started' });
  });
});
