export { createEmptyTestDatabase, createTestDatabase, type TestDatabase } from './test-database';
