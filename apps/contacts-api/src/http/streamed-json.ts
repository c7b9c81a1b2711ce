import { Readable } from 'node:stream';
import type { Context } from 'koa';

/**
 * Answers a JSON array read a page at a time (contactRecordPages), sending each page as it is
 * read: the process holds one page, however long the list (v3's listing of a member's every
 * contact once held them all, and 250,000 ran the API out of memory). `envelope` names the member
 * of an object the array is sent in (`{"data":[…]}`); without it the array is the body.
 *
 * The first page is read before anything is sent, so that a database that cannot be reached is
 * answered as usual (503). A failure after it ends the response short, as the status is sent
 * already: no client takes a truncated body for the list.
 */
export async function sendJsonPages<T>(
  ctx: Context,
  pages: AsyncIterable<T[]>,
  serialize: (item: T) => unknown,
  envelope?: string,
): Promise<void> {
  const iterator = pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = Readable.from(jsonText(first, iterator, serialize, envelope));
}

async function* jsonText<T>(
  first: IteratorResult<T[]>,
  rest: AsyncIterator<T[]>,
  serialize: (item: T) => unknown,
  envelope: string | undefined,
): AsyncGenerator<string> {
  yield envelope === undefined ? '[' : `{${JSON.stringify(envelope)}:[`;
  let separator = '';
  for (let page = first; !page.done; page = await rest.next()) {
    if (page.value.length === 0) continue;
    yield separator + page.value.map((item) => JSON.stringify(serialize(item))).join(',');
    separator = ',';
  }
  yield envelope === undefined ? ']' : ']}';
}
