import pg from 'pg';
import { infrastructure, uniqueSuffix } from '@svc/test-kit';
import { createDatabase, ensurePostgresDatabase } from '../../src';

const created: string[] = [];

function urlFor(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: (await infrastructure()).postgresUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function databasesNamed(name: string): Promise<number> {
  return withAdmin(
    async (client) =>
      (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0,
  );
}

afterAll(async () => {
  await withAdmin(async (client) => {
    for (const name of created)
      await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  });
});

describe('creating a missing PostgreSQL database', () => {
  it('when createDatabase is given a URL naming a database that does not exist, then it is created and usable', async () => {
    const name = `t_storage_new_${uniqueSuffix()}`;
    created.push(name);
    expect(await databasesNamed(name)).toBe(0);

    const db = await createDatabase({ url: urlFor((await infrastructure()).postgresUrl, name) });
    try {
      expect(await databasesNamed(name)).toBe(1);
      expect((await db.query<{ db: string }>('SELECT current_database() AS db')).rows).toEqual([
        { db: name },
      ]);
    } finally {
      await db.close();
    }
  });

  it('when the database already exists, then createDatabase opens it again, keeping its data', async () => {
    const name = `t_storage_again_${uniqueSuffix()}`;
    created.push(name);
    const url = urlFor((await infrastructure()).postgresUrl, name);
    const first = await createDatabase({ url });
    await first.exec("CREATE TABLE kept (x text); INSERT INTO kept VALUES ('still here');");
    await first.close();

    const second = await createDatabase({ url });
    try {
      expect((await second.query('SELECT x FROM kept')).rows).toEqual([{ x: 'still here' }]);
      expect(await databasesNamed(name)).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('when the name has capitals and a dash, then the database gets exactly that name', async () => {
    const name = `T_Storage-Mixed_${uniqueSuffix()}`;
    created.push(name);

    await ensurePostgresDatabase(urlFor((await infrastructure()).postgresUrl, name));

    expect(await databasesNamed(name)).toBe(1);
    expect(await databasesNamed(name.toLowerCase())).toBe(0);
  });

  it('when several replicas ensure the same new database at once, then all succeed and it exists once', async () => {
    const name = `t_storage_race_${uniqueSuffix()}`;
    created.push(name);
    const url = urlFor((await infrastructure()).postgresUrl, name);

    await expect(Promise.all([1, 2, 3, 4].map(() => ensurePostgresDatabase(url)))).resolves.toHaveLength(4);

    expect(await databasesNamed(name)).toBe(1);
  });

  it('when the URL names the postgres database itself or none, then nothing is created and nothing fails', async () => {
    const server = (await infrastructure()).postgresUrl;
    const count = async () =>
      withAdmin(async (client) =>
        Number((await client.query('SELECT count(*) AS n FROM pg_database')).rows[0].n),
      );
    const before = await count();

    await ensurePostgresDatabase(urlFor(server, 'postgres'));
    await ensurePostgresDatabase(urlFor(server, ''));

    expect(await count()).toBe(before);
  });
});
