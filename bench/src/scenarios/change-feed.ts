/**
 * Scenario 10's preparation, through the API only: the sync token a client holds after a full
 * sync, then 100 changes to the member's book, so that a sync with that token has exactly 100
 * ids to report.
 *
 * Tokens are only ever obtained the way a client obtains them: the last page of a full listing
 * (GET /v4/contacts/changes without sync_token) is the only answer that carries a first one, so
 * the full listing is paged through once per member (pages of 1000, the largest the API allows),
 * outside the timed part. Its time is reported too: it is what a new client pays once.
 */

interface ChangesPage {
  data: Array<{ id: number }>;
  deleted: number[];
  meta: { next_cursor: string | null; sync_token?: string };
}

export interface FullSync {
  syncToken: string;
  contacts: number;
  pages: number;
  ms: number;
}

/** Pages through the member's whole book, as a new client does, and returns the token it ends with. */
export async function fullSync(apiUrl: string, accessToken: string): Promise<FullSync> {
  const started = performance.now();
  let contacts = 0;
  let pages = 0;
  let cursor: string | null = null;
  for (;;) {
    const query = new URLSearchParams({ limit: '1000', ...(cursor ? { cursor } : {}) });
    const page = await getPage(apiUrl, accessToken, `/v4/contacts/changes?${query}`);
    contacts += page.data.length;
    pages += 1;
    cursor = page.meta.next_cursor;
    if (cursor === null) {
      if (!page.meta.sync_token) throw new Error('the last page of a full sync carried no sync_token');
      return { syncToken: page.meta.sync_token, contacts, pages, ms: performance.now() - started };
    }
  }
}

export const CHANGES = 100;

/**
 * 100 changes in one POST /v4/contacts/batch: 40 updates and 30 deletes of contacts spread over
 * the member's id range (so that they land on many index pages), and 30 creates.
 */
export async function changeBook(
  apiUrl: string,
  accessToken: string,
  ids: { first: number; last: number },
): Promise<void> {
  const touched = 70;
  const step = Math.max(1, Math.floor((ids.last - ids.first) / touched));
  const spread = Array.from({ length: touched }, (_, index) => ids.first + index * step);
  const operations = [
    ...spread.slice(0, 40).map((id) => ({ op: 'update', id, contact: { city: `Changed ${id}` } })),
    ...spread.slice(40).map((id) => ({ op: 'delete', id })),
    ...Array.from({ length: CHANGES - touched }, (_, index) => ({
      op: 'create',
      contact: { name: `Synced ${index}`, email: `synced-${index}@example.test` },
    })),
  ];
  const response = await fetch(`${apiUrl}/v4/contacts/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ operations }),
  });
  if (response.status !== 200)
    throw new Error(`the changes batch answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

/** One incremental sync must report the 100 changes on one page, and hand out the next token. */
export async function checkIncrementalSync(apiUrl: string, accessToken: string, path: string): Promise<void> {
  const page = await getPage(apiUrl, accessToken, path);
  const reported = page.data.length + page.deleted.length;
  if (reported !== CHANGES || page.meta.next_cursor !== null || !page.meta.sync_token) {
    throw new Error(
      `an incremental sync reported ${page.data.length} changed and ${page.deleted.length} deleted ` +
        `(wanted ${CHANGES} on one page, with the next sync_token)`,
    );
  }
}

async function getPage(apiUrl: string, accessToken: string, path: string): Promise<ChangesPage> {
  const response = await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });
  if (response.status !== 200) throw new Error(`GET ${path.split('?')[0]} answered ${response.status}`);
  return (await response.json()) as ChangesPage;
}
