import type { Queryable } from '@svc/storage';
import { RequestLogBuffer, type LoggedRequest, type RequestLogStore } from '../../src/domain/request-log';

// The request log's buffer (#32): the hot path only appends; a write takes everything buffered,
// and a failed write keeps it (the newest, within the bound) for the next.

const entry = (n: number): LoggedRequest => ({
  platformId: 'plat_1',
  keyId: 'key_1',
  at: new Date(Date.UTC(2026, 10, 30, 12, 0, n)),
  method: 'GET',
  path: `/v1/svc/echo/${n}`,
  operation: 'echo',
  status: 200,
  latencyMs: n,
  requestId: `req_${n}`,
});

function storeWith(fail: () => boolean): RequestLogStore & { written: LoggedRequest[][] } {
  const written: LoggedRequest[][] = [];
  return {
    written,
    append: async (_q, entries) => {
      if (fail()) throw new Error('database unreachable');
      written.push(entries);
    },
    recent: () => Promise.reject(new Error('not read here')),
    purge: () => Promise.reject(new Error('not purged here')),
  };
}

const db = {} as Queryable;

describe('the request log buffer (#32)', () => {
  it('when requests are noted, then one write takes them all in order, and an empty buffer writes nothing', async () => {
    const store = storeWith(() => false);
    const buffer = new RequestLogBuffer(store);
    for (let n = 1; n <= 3; n += 1) buffer.note(entry(n));
    expect(buffer.size).toBe(3);
    expect(await buffer.write(db)).toBe(3);
    expect(store.written.map((batch) => batch.map((e) => e.requestId))).toEqual([
      ['req_1', 'req_2', 'req_3'],
    ]);
    expect(buffer.size).toBe(0);
    expect(await buffer.write(db)).toBe(0);
    expect(store.written).toHaveLength(1);
  });

  it('when the database is unreachable, then the newest requests are kept within the bound, the dropped ones counted, and written once it is back', async () => {
    let down = true;
    const store = storeWith(() => down);
    const buffer = new RequestLogBuffer(store, 3);
    buffer.note(entry(1));
    buffer.note(entry(2));
    await expect(buffer.write(db)).rejects.toThrow('database unreachable');
    buffer.note(entry(3));
    buffer.note(entry(4));
    expect(buffer.size).toBe(3);
    expect(buffer.dropped).toBe(1);
    down = false;
    expect(await buffer.write(db)).toBe(3);
    expect(store.written[0]?.map((e) => e.requestId)).toEqual(['req_2', 'req_3', 'req_4']);
    expect(buffer.dropped).toBe(0);
  });
});
