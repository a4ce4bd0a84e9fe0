import { isTransientFailure } from '@svc/errors';

/**
 * Writes what many callers hand in together: while one write is under way, what arrives waits
 * for the next, which takes it all (up to `maxItems`) in one statement or transaction. Each
 * caller's promise settles with the write that carried its item, with that item's result (the
 * write returns one per item, in order). A transient failure (database
 * unavailable) fails the whole group, and each caller retries as it would alone; any other
 * failure of a group of several is written again one item at a time, so only the item that
 * causes it fails.
 */
export class GroupCommit<T, R> {
  private readonly waiting: Array<{ item: T; resolve(result: R): void; reject(err: unknown): void }> = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxItems = 64,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.waiting.length === 0) return;
    this.writing = true;
    // After the callers that run in this turn of the event loop have handed their items in.
    setImmediate(() => {
      void this.flush().finally(() => {
        this.writing = false;
        this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const group = this.waiting.splice(0, this.maxItems);
    try {
      const results = await this.write(group.map((w) => w.item));
      group.forEach((w, i) => w.resolve(results[i] as R));
    } catch (err) {
      if (group.length === 1 || isTransientFailure(err)) {
        for (const w of group) w.reject(err);
        return;
      }
      for (const w of group) {
        try {
          const [result] = await this.write([w.item]);
          w.resolve(result as R);
        } catch (one) {
          w.reject(one);
        }
      }
    }
  }
}
