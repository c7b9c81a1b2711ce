import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/http/errors';
import { MemoryBudget } from '../src/http/upload-memory';

const settledSoon = <T>(promise: Promise<T>) =>
  Promise.race([
    promise.then(() => 'granted' as const),
    new Promise((resolve) => setTimeout(() => resolve('waiting'), 20)),
  ]);

describe('the upload memory budget', () => {
  it('grants what fits at once and makes the rest wait until bytes are given back', async () => {
    const budget = new MemoryBudget(100, 5_000);
    const releaseFirst = await budget.reserve(60);
    const second = budget.reserve(60);
    expect(await settledSoon(second)).toBe('waiting');
    releaseFirst();
    expect(await settledSoon(second)).toBe('granted');
  });

  it('serves waiters in order: a small request does not overtake a large one that waits', async () => {
    const budget = new MemoryBudget(100, 5_000);
    const release = await budget.reserve(90);
    const large = budget.reserve(80);
    const small = budget.reserve(5);
    expect(await settledSoon(small)).toBe('waiting');
    release();
    expect(await settledSoon(large)).toBe('granted');
    expect(await settledSoon(small)).toBe('granted');
  });

  it('gives a request larger than the whole budget all of it, once nothing else holds any', async () => {
    const budget = new MemoryBudget(100, 5_000);
    const release = await budget.reserve(1_000);
    expect(await settledSoon(budget.reserve(1))).toBe('waiting');
    release();
  });

  it('answers 503 with Retry-After to a request that waited too long, and lets the ones behind it through', async () => {
    const budget = new MemoryBudget(100, 30);
    const release = await budget.reserve(50);
    const tooLarge = budget.reserve(100);
    const behind = budget.reserve(40);
    const refusal = await tooLarge.catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(503);
    expect((refusal as ApiError).headers['Retry-After']).toBe('5');
    expect(await settledSoon(behind)).toBe('granted');
    release();
  });

  it('takes a release once: a second call gives nothing back twice', async () => {
    const budget = new MemoryBudget(100, 5_000);
    const release = await budget.reserve(100);
    release();
    release();
    const taken = await budget.reserve(100);
    expect(await settledSoon(budget.reserve(1))).toBe('waiting');
    taken();
  });
});
