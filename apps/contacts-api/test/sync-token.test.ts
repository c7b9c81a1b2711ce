import { describe, expect, it } from 'vitest';
import {
  decodeChangesCursor,
  decodeSyncToken,
  encodeChangesCursor,
  encodeSyncToken,
  isExpired,
  isSnapshotText,
} from '../src/sync/sync-token';

describe('sync tokens', () => {
  it('round-trip, and refuse anything that is not one of ours', () => {
    const token = { memberId: 7, snapshot: '100:105:101,103', issuedAt: 1_700_000_000 };
    expect(decodeSyncToken(encodeSyncToken(token))).toEqual(token);
    const cursor = {
      memberId: 7,
      afterId: 12,
      next: { snapshot: '110:110:', issuedAt: 2 },
      since: { snapshot: '100:100:', issuedAt: 1 },
    };
    expect(decodeChangesCursor(encodeChangesCursor(cursor))).toEqual(cursor);
    expect(decodeChangesCursor(encodeChangesCursor({ ...cursor, limit: 7 }))).toEqual({ ...cursor, limit: 7 });
    for (const limit of [0, 1001, 1.5, '7']) {
      const edited = { ...JSON.parse(Buffer.from(encodeChangesCursor(cursor), 'base64url').toString()), l: limit };
      expect(
        decodeChangesCursor(Buffer.from(JSON.stringify(edited)).toString('base64url')),
        String(limit),
      ).toBeUndefined();
    }
    expect(decodeSyncToken(encodeChangesCursor(cursor))).toBeUndefined();
    expect(decodeChangesCursor(encodeSyncToken(token))).toBeUndefined();
    for (const bad of ['', 'e30', '!!!', Buffer.from('[1]').toString('base64url'), 'a'.repeat(20_000)]) {
      expect(decodeSyncToken(bad), bad.slice(0, 10)).toBeUndefined();
    }
    expect(decodeSyncToken(encodeSyncToken({ ...token, memberId: 0 }))).toBeUndefined();
  });

  it("accept only snapshots PostgreSQL's pg_snapshot input accepts", () => {
    expect(isSnapshotText('5:9:5,7,8')).toBe(true);
    expect(isSnapshotText('5:5:')).toBe(true);
    for (const bad of [
      '0:5:',
      '9:5:',
      '5:9:4',
      '5:9:9',
      '5:9:7,6',
      '5:9',
      'a:b:',
      '5:99999999999999999999:',
      '1:8589934592:',
      '4294967296:4294967300:',
    ]) {
      expect(isSnapshotText(bad), bad).toBe(false);
    }
  });

  it('expire strictly after their lifetime', () => {
    expect(isExpired(1_000, 60, 1_060_000)).toBe(false);
    expect(isExpired(1_000, 60, 1_061_000)).toBe(true);
  });
});
