import { kyselyOn, type Queryable } from '@svc/storage';
import type { Upload, UploadStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Pictures uploaded from the dashboard, bytes and all, in the gateway's database. */
export class UploadRepository implements UploadStore {
  async insert(q: Queryable, upload: Upload): Promise<void> {
    await db(q).insertInto('dashboardUploads').values(upload).execute();
  }

  async find(q: Queryable, id: string): Promise<Pick<Upload, 'contentType' | 'bytes'> | null> {
    const row = await db(q)
      .selectFrom('dashboardUploads')
      .select(['contentType', 'bytes'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ?? null;
  }
}
