export { TEST_RATE_LIMIT_WINDOW_SECONDS } from './rate-limit-window';
export { describeDatabaseRefusalsAtStart } from './service-start';
export { createEmptyTestDatabase, createTestDatabase, type TestDatabase } from './test-database';
export { connectTestRedis, TEST_REDIS_URL, type TestRedis } from './test-redis';
