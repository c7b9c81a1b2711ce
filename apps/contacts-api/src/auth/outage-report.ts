import type { Logger } from '@contacts/config';

/** At most one line per this long while the authorization server cannot be asked. */
const REPORT_INTERVAL_MS = 30_000;

/**
 * While the authorization server cannot be asked, every request with a token not cached fails
 * alike (503, Retry-After): handled, so it is a warning, without a stack, and said once when it
 * begins and then at most every 30 s with how many requests were refused since the last line,
 * rather than one error per request, which buried everything else in an outage under load.
 */
export function outageReport(logger: Logger, now: () => number = Date.now): (error: Error) => void {
  let lastReportAt = Number.NEGATIVE_INFINITY;
  let refused = 0;
  return (error) => {
    refused += 1;
    if (now() - lastReportAt < REPORT_INTERVAL_MS) return;
    logger.warn(
      { reason: error.message, refused_since_last_report: refused },
      'authorization server unavailable: requests whose token is not cached are answered 503',
    );
    lastReportAt = now();
    refused = 0;
  };
}
