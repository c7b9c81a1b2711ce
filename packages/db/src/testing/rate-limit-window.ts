/**
 * The window of a test that counts requests up to a limit. Windows are aligned to the epoch, so a
 * 60-s window ends in the middle of a test that takes a second about once in sixty runs (its
 * counts start again, or its key expires in Redis before the test looks); a day's window ends
 * at midnight UTC only.
 */
export const TEST_RATE_LIMIT_WINDOW_SECONDS = 86_400;
