import { createDatabase, selectPage, type Database } from '../../src';

let db: Database;
beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
  await db.exec(`CREATE TABLE items (id int PRIMARY KEY, owner text NOT NULL, kind text NOT NULL);
    INSERT INTO items SELECT g, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, CASE WHEN g % 3 = 0 THEN 'x' ELSE 'y' END
    FROM generate_series(1, 30) g;`);
});
afterAll(async () => {
  await db.close();
});

describe('selectPage', () => {
  it('when fixed conditions and equality filters are given, then the page and the total agree on them', async () => {
    const page = await selectPage<{ id: number }>(db, {
      select: 'id',
      from: 'items',
      where: ['owner = $1'],
      params: ['a'],
      equals: [
        ['kind', 'x'],
        ['id', undefined],
      ],
      orderBy: 'id DESC',
      limit: 2,
      offset: 1,
    });
    // owner a (even) and kind x (multiple of 3): 6, 12, 18, 24, 30
    expect(page.total).toBe(5);
    expect(page.rows.map((r) => r.id)).toEqual([24, 18]);
  });

  it('when the offset is past the last match, then the page is empty and the total still counts all', async () => {
    const page = await selectPage<{ id: number }>(db, {
      select: 'id',
      from: 'items',
      orderBy: 'id',
      limit: 10,
      offset: 100,
    });
    expect(page.rows).toEqual([]);
    expect(page.total).toBe(30);
  });
});
