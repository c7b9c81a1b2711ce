/**
 * Scenario 12's client: one GET /v4/contacts/export read as a stream (as a client saving the
 * file would), counting the cards so that a truncated or failed export cannot pass for a fast one.
 */
export interface ExportRun {
  ms: number;
  bytes: number;
  cards: number;
}

const CARD_START = 'BEGIN:VCARD';

export async function exportOnce(apiUrl: string, accessToken: string): Promise<ExportRun> {
  const started = performance.now();
  const response = await fetch(`${apiUrl}/v4/contacts/export`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  if (response.status !== 200 || !response.body) throw new Error(`the export answered ${response.status}`);
  const decoder = new TextDecoder();
  let bytes = 0;
  let cards = 0;
  // The end of the previous chunk, so that a marker split across two chunks is counted once.
  let carry = '';
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    const text = carry + decoder.decode(chunk, { stream: true });
    for (let at = text.indexOf(CARD_START); at !== -1; at = text.indexOf(CARD_START, at + CARD_START.length)) {
      cards += 1;
    }
    // Too short to hold a whole marker, and the marker cannot overlap itself: nothing counts twice.
    carry = text.slice(-(CARD_START.length - 1));
  }
  return { ms: performance.now() - started, bytes, cards };
}
