import { createLogger } from '@contacts/config';
import { describe, expect, it } from 'vitest';
import { outageReport } from '../src/auth/outage-report';

/** A report writing to a list, on a clock the test moves. */
function aReport() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('test', { LOG_LEVEL: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let clock = 1_000_000;
  const report = outageReport(logger, () => clock);
  return { lines, report, advance: (ms: number) => (clock += ms) };
}

describe('an authorization server that cannot be asked', () => {
  it('is said once as it begins, then at most every 30 s with the requests refused since, as a warning without a stack', () => {
    const { lines, report, advance } = aReport();
    const failure = new Error('introspection answered HTTP 502');
    for (let request = 0; request < 500; request++) {
      report(failure);
      advance(100);
    }
    // 50 s of refusals: the first request, then the one 30 s on.
    expect(lines).toHaveLength(2);
    expect(lines.map((line) => line.refused_since_last_report)).toEqual([1, 300]);
    for (const line of lines) {
      expect(line).toMatchObject({ level: 40, reason: 'introspection answered HTTP 502' });
      expect(JSON.stringify(line)).not.toContain('stack');
    }
  });
});
