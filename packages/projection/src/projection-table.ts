import {
  kyselyOn,
  sql,
  type Expression,
  type InsertObject,
  type Queryable,
  type RawBuilder,
} from '@svc/storage';

// Upsert-if-newer on Kysely, for any service's generated DB: the one place the ordering rule
// (./ordering.ts) is written in SQL. The builder is typed loosely inside (a generic table cannot
// be checked column by column); the public methods take the service's own table and columns.
type Loose = Record<string, Record<string, unknown>>;

export type TableOf<DB> = keyof DB & string;
export type ColumnOf<DB, T extends TableOf<DB>> = keyof DB[T] & string;

/** How a table keeps its copy of another service's entities. */
export interface ProjectionTableSpec<DB, T extends TableOf<DB>> {
  table: T;
  /** The entity's key (the conflict target). */
  key: ColumnOf<DB, T> | readonly ColumnOf<DB, T>[];
  /** The owner's entity version of the stored state. */
  version: ColumnOf<DB, T>;
  /** The stored state's instant; orders states of one version. Omitted: the version alone. */
  at?: ColumnOf<DB, T>;
  /** A last tie-break after the instant (a final status over an open one of the same instant). */
  rank?: ColumnOf<DB, T>;
  /** Set once the entity is deleted for good: a row with it is never changed again. */
  tombstone?: ColumnOf<DB, T>;
}

/** The two sides of a conflict, for a column that is not simply replaced. */
export interface ConflictRefs<C extends string> {
  /** The column as stored. */
  stored(column: C): RawBuilder<unknown>;
  /** The column as the incoming state has it (`excluded`). */
  incoming(column: C): RawBuilder<unknown>;
  /** True when the incoming state is at least as new as the stored one (the ordering rule). */
  newer: RawBuilder<boolean>;
}

export interface UpsertOptions<C extends string> {
  /** The columns an existing row takes from the incoming state (default: every one given but the key). */
  update?: readonly C[];
  /** Columns an existing row gets otherwise: an expression of both sides. */
  set?: (refs: ConflictRefs<C>) => Partial<Record<C, Expression<unknown>>>;
  /**
   * When an existing row changes (default: `newer`). For a row that holds more than the one entity,
   * e.g. detection's identity with its box: the rule is composed with the row's own.
   */
  guard?: (refs: ConflictRefs<C>) => Expression<boolean>;
}

/** A projection table: its rows change only to a state at least as new as the stored one. */
export class ProjectionTable<DB, T extends TableOf<DB>> {
  private readonly keys: readonly ColumnOf<DB, T>[];

  constructor(private readonly spec: ProjectionTableSpec<DB, T>) {
    this.keys = typeof spec.key === 'string' ? [spec.key] : (spec.key as readonly ColumnOf<DB, T>[]);
  }

  /**
   * Inserts the state, or replaces the stored one when the incoming is at least as new (and the
   * entity is not buried). True when the row was written, false when the stored state was newer.
   */
  async upsertIfNewer(
    tx: Queryable,
    values: InsertObject<DB, T>,
    options: UpsertOptions<ColumnOf<DB, T>> = {},
  ): Promise<boolean> {
    const refs = this.refs();
    const replaced = this.updated(values, options.update).map((column) => [column, refs.incoming(column)]);
    const guard = options.guard?.(refs) ?? refs.newer;
    const row = await this.insert(tx, values)
      .onConflict((conflict) =>
        conflict
          .columns(this.keys)
          .doUpdateSet({ ...Object.fromEntries(replaced), ...options.set?.(refs) })
          .where(this.unburied(guard)),
      )
      .returning(this.keys)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Merges the state into the stored one: each column given takes the newer side's value, and
   * `set` columns are written whatever the order (an instant the first fact recorded stays, say).
   * For a row that keeps what older facts add; the position columns follow the newer side too.
   */
  async mergeNewer(
    tx: Queryable,
    values: InsertObject<DB, T>,
    options: Pick<UpsertOptions<ColumnOf<DB, T>>, 'update' | 'set'> = {},
  ): Promise<void> {
    const refs = this.refs();
    const merged = this.updated(values, options.update).map((column) => [
      column,
      sql`CASE WHEN ${refs.newer} THEN ${refs.incoming(column)} ELSE ${refs.stored(column)} END`,
    ]);
    await this.insert(tx, values)
      .onConflict((conflict) =>
        conflict.columns(this.keys).doUpdateSet({ ...Object.fromEntries(merged), ...options.set?.(refs) }),
      )
      .execute();
  }

  /**
   * Deletes the entity for good: a tombstone row (`values` must set the tombstone column), written
   * even when the entity was never seen, so that its creation arriving later changes nothing. The
   * first deletion's tombstone stays. True when this call buried it.
   */
  async bury(tx: Queryable, values: InsertObject<DB, T>): Promise<boolean> {
    const tombstone = this.spec.tombstone;
    if (tombstone === undefined) throw new Error(`${this.spec.table} keeps no tombstone column`);
    const refs = this.refs();
    const row = await this.insert(tx, values)
      .onConflict((conflict) =>
        conflict
          .columns(this.keys)
          .doUpdateSet({ [tombstone]: refs.incoming(tombstone) })
          .where(this.unburied(sql<boolean>`true`)),
      )
      .returning(this.keys)
      .executeTakeFirst();
    return row !== undefined;
  }

  private insert(tx: Queryable, values: InsertObject<DB, T>) {
    return kyselyOn<Loose>(tx)
      .insertInto(this.spec.table as string)
      .values(values as Record<string, unknown>);
  }

  private updated(values: InsertObject<DB, T>, update?: readonly ColumnOf<DB, T>[]): ColumnOf<DB, T>[] {
    if (update !== undefined) return [...update];
    return (Object.keys(values) as ColumnOf<DB, T>[]).filter((column) => !this.keys.includes(column));
  }

  private unburied(guard: Expression<boolean>): RawBuilder<boolean> {
    const { tombstone } = this.spec;
    if (tombstone === undefined) return sql<boolean>`${guard}`;
    return sql<boolean>`${this.stored(tombstone)} IS NULL AND (${guard})`;
  }

  private stored(column: string): RawBuilder<unknown> {
    return sql.ref(`${this.spec.table}.${column}`);
  }

  private refs(): ConflictRefs<ColumnOf<DB, T>> {
    const { version, at, rank } = this.spec;
    const position = [version, at, rank].filter((column): column is ColumnOf<DB, T> => column !== undefined);
    const incoming = (column: string) => sql.ref(`excluded.${column}`);
    const tuple = (side: (column: string) => RawBuilder<unknown>) =>
      sql`(${sql.join(position.map((column) => side(column)))})`;
    // A row comparison: the version first, then the instant, then the rank (ADR 0010).
    const newer = sql<boolean>`${tuple((column) => this.stored(column))} <= ${tuple(incoming)}`;
    return { stored: (column) => this.stored(column), incoming, newer };
  }
}

/** A table of deleted entity ids (a box deleted for good), for a projection whose rows outlive it. */
export class Tombstones<DB, T extends TableOf<DB>> {
  constructor(
    private readonly table: T,
    private readonly key: ColumnOf<DB, T>,
  ) {}

  // The loose builder's names: a generic table cannot be checked column by column.
  private get names(): { table: string; key: string } {
    return { table: this.table, key: this.key };
  }

  /** Remembers that `id` is deleted for good (again: no change). */
  async bury(tx: Queryable, id: string): Promise<void> {
    const { table, key } = this.names;
    await kyselyOn<Loose>(tx)
      .insertInto(table)
      .values({ [key]: id })
      .onConflict((conflict) => conflict.column(key).doNothing())
      .execute();
  }

  /** True when `id` was deleted for good. */
  async isBuried(q: Queryable, id: string): Promise<boolean> {
    const { table, key } = this.names;
    const row = await kyselyOn<Loose>(q).selectFrom(table).select(key).where(key, '=', id).executeTakeFirst();
    return row !== undefined;
  }
}
