import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { sendJsonPages } from '../src/http/streamed-json';

/** The parts of a Koa context sendJsonPages sets. */
const aContext = () => ({ type: '', body: undefined as unknown });

async function* pagesOf(pages: number[][], failAfter?: number): AsyncGenerator<number[]> {
  for (const [index, page] of pages.entries()) {
    if (index === failAfter) throw new Error('the database went away');
    yield page;
  }
}

async function chunksOf(stream: Readable): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(String(chunk));
  return chunks;
}

describe('sendJsonPages (a listing sent as it is read)', () => {
  it('sends one chunk per page, however many, as one JSON array or envelope', async () => {
    const ctx = aContext();
    await sendJsonPages(ctx as unknown as Context, pagesOf([[1, 2], [3], [4, 5]]), (n) => ({ n }));
    expect(ctx.type).toBe('application/json; charset=utf-8');
    const chunks = await chunksOf(ctx.body as Readable);
    // The opening, a chunk per page, the closing: never the whole list in one string.
    expect(chunks).toEqual(['[', '{"n":1},{"n":2}', ',{"n":3}', ',{"n":4},{"n":5}', ']']);
    expect(JSON.parse(chunks.join(''))).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));

    const enveloped = aContext();
    await sendJsonPages(enveloped as unknown as Context, pagesOf([[1]]), (n) => n, 'data');
    expect(JSON.parse((await chunksOf(enveloped.body as Readable)).join(''))).toEqual({ data: [1] });
    const empty = aContext();
    await sendJsonPages(empty as unknown as Context, pagesOf([]), (n) => n, 'data');
    expect((await chunksOf(empty.body as Readable)).join('')).toBe('{"data":[]}');
  });

  it('fails before answering when the first page cannot be read, and ends the body short after it', async () => {
    await expect(sendJsonPages(aContext() as unknown as Context, pagesOf([[1]], 0), (n) => n)).rejects.toThrow(
      'the database went away',
    );
    const ctx = aContext();
    await sendJsonPages(ctx as unknown as Context, pagesOf([[1], [2]], 1), (n) => n);
    // The stream errors (Koa then cuts the connection): no client takes the part for the list.
    await expect(chunksOf(ctx.body as Readable)).rejects.toThrow('the database went away');
  });
});
