// Kysely, the typed SQL builder, over our Queryable: one code path for PostgreSQL and PGlite, and
// transactions stay ours (Database.transaction, with the idempotency hook enlisted), because every
// compiled query is sent through the Queryable a repository is handed (ADR 0017).
import {
  CamelCasePlugin,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type ColumnType,
  type Compilable,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type QueryCompiler,
  type QueryResult as KyselyQueryResult,
  type RawBuilder,
  type SelectQueryBuilder,
} from 'kysely';
import type { Queryable } from './database';

const OWN_TRANSACTIONS =
  'Transactions are Database.transaction(fn) (the idempotency hook enlists there); pass its tx to kyselyOn';

// The prepared-statement name of a compiled query run by `executeNamed`.
const statementNames = new WeakMap<CompiledQuery, string>();

class QueryableConnection implements DatabaseConnection {
  constructor(private readonly q: Queryable) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<KyselyQueryResult<R>> {
    const name = statementNames.get(compiled);
    const result = await this.q.query<R & object>(
      compiled.sql,
      [...compiled.parameters],
      name === undefined ? undefined : { name },
    );
    return { rows: result.rows as R[], numAffectedRows: BigInt(result.rowCount) };
  }

  // eslint-disable-next-line require-yield -- an async generator that refuses before yielding
  async *streamQuery<R>(): AsyncIterableIterator<KyselyQueryResult<R>> {
    throw new Error('Streaming is not supported over a Queryable; page with limit/offset');
  }
}

/** The shared builder's driver: it has no connection of its own and opens no transaction. */
class NoConnectionDriver implements Driver {
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    throw new Error('A query needs a Queryable: use kyselyOn(q)');
  }
  async beginTransaction(): Promise<void> {
    throw new Error(OWN_TRANSACTIONS);
  }
  async commitTransaction(): Promise<void> {
    throw new Error(OWN_TRANSACTIONS);
  }
  async rollbackTransaction(): Promise<void> {
    throw new Error(OWN_TRANSACTIONS);
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

const driver = new NoConnectionDriver();
const dialect: Dialect = {
  createAdapter: (): DialectAdapter => new PostgresAdapter(),
  createDriver: (): Driver => driver,
  createQueryCompiler: (): QueryCompiler => new PostgresQueryCompiler(),
  createIntrospector: (db: Kysely<unknown>): DatabaseIntrospector => new PostgresIntrospector(db),
};

// camelCase in TypeScript, snake_case in SQL. Keys inside jsonb values are data, not columns.
const camelCase = new CamelCasePlugin({ maintainNestedObjectKeys: true });
const config = { dialect, plugins: [camelCase] };
// One builder compiles for every Queryable; building a whole Kysely per transaction costs far more
// (about 300 µs in bench/storage) than giving the shared one a connection.
const shared = new Kysely<unknown>(config);

// Repositories are stateless and get a new Queryable per transaction; one builder per Queryable.
const builders = new WeakMap<Queryable, Kysely<unknown>>();

/**
 * A Kysely query builder that runs its queries on `q` (the database or an open transaction),
 * with camelCase names in TypeScript for snake_case columns. `DB` is a service's generated
 * `db.generated.ts`. Cached per Queryable, so calling it per query costs a map lookup.
 */
export function kyselyOn<DB>(q: Queryable): Kysely<DB> {
  let builder = builders.get(q);
  if (builder === undefined) {
    const connection = new QueryableConnection(q);
    builder = new Kysely<unknown>({
      config,
      dialect,
      driver,
      executor: shared
        .getExecutor()
        .withConnectionProvider({ provideConnection: (consumer) => consumer(connection) }),
    });
    builders.set(q, builder);
  }
  return builder as Kysely<DB>;
}

/**
 * Runs `query` on `q` as the prepared statement `name` (QueryOptions.name: planned once per
 * connection on PostgreSQL), for a hot query; its rows come back as `execute()` gives them. One
 * name, one SQL text: pass arrays as one parameter (`= any(${ids})`), never spread into `in (…)`.
 */
export async function executeNamed<O>(
  q: Queryable,
  name: string,
  query: Compilable<O>,
): Promise<{ rows: O[]; numAffectedRows: number }> {
  const compiled = query.compile();
  statementNames.set(compiled, name);
  const result = await kyselyOn<unknown>(q).executeQuery(compiled);
  return { rows: result.rows, numAffectedRows: Number(result.numAffectedRows ?? 0) };
}

const SLOT = '\u0000kysely-slot:';

/**
 * A named prepared statement built and compiled once, then run with each call's values: for a
 * per-request hot path, where building and compiling the query every time costs a few hundred µs
 * of CPU. `build` gets stand-ins for the inputs: it must use them only as values (never branch on
 * them); every other value in the query is fixed when it is first built. Rows come back in camelCase.
 */
export function preparedStatement<DB, I extends Record<string, unknown>, O>(
  name: string,
  build: (db: Kysely<DB>, input: I) => Compilable<O>,
): (q: Queryable, input: I) => Promise<{ rows: O[]; rowCount: number }> {
  let prepared: { sql: string; values: ((input: I) => unknown)[] } | undefined;
  return async (q, input) => {
    if (prepared === undefined) {
      // Every input read while building is a stand-in, whether or not this call's input has it.
      const standIns = new Proxy({} as I, { get: (_target, key) => SLOT + String(key) });
      const compiled = build(shared as Kysely<DB>, standIns).compile();
      prepared = {
        sql: compiled.sql,
        values: compiled.parameters.map((value) =>
          typeof value === 'string' && value.startsWith(SLOT)
            ? (each: I) => each[value.slice(SLOT.length)]
            : () => value,
        ),
      };
    }
    const { sql: text, values } = prepared;
    const result = await q.query<O & object>(
      text,
      values.map((value) => value(input)),
      { name },
    );
    const transformed = await camelCase.transformResult({
      queryId: { queryId: name },
      result: { rows: result.rows as Record<string, unknown>[] },
    });
    return { rows: transformed.rows as O[], rowCount: result.rowCount };
  };
}

/**
 * An int8 column of cents. Read as a number, like every int8 (exact up to 2^53; cast it to text
 * where an amount may be larger), and written from the bigint's decimal string, so that a `bigint`
 * never passes through a double on its way in.
 */
export type Int8Cents = ColumnType<number, string, string>;
/** A nullable `Int8Cents`. */
export type Int8CentsOrNull = ColumnType<number | null, string | null, string | null>;

/** `T` as JSON gives it back: a Date becomes its ISO string, everywhere inside `T`. */
export type Jsonified<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Jsonified<U>[]
    : T extends object
      ? { [K in keyof T]: Jsonified<T[K]> }
      : T;

declare const jsonbInput: unique symbol;
/** A value serialised for a jsonb column; made only by `jsonb(value)`. */
export interface JsonbInput<T> {
  readonly [jsonbInput]: T;
}

/**
 * A jsonb column holding `T` (its JSON form: dates are strings): read as `T` (both engines parse
 * jsonb), written only through `jsonb(value)`, as pg would send a JS array as a PostgreSQL array.
 */
export type Jsonb<T> = ColumnType<T, JsonbInput<T>, JsonbInput<T>>;

/** `value` as a jsonb parameter, for an insert or update of a `Jsonb<Jsonified<T>>` column. */
export function jsonb<T>(value: T): RawBuilder<JsonbInput<Jsonified<T>>> {
  return sql<JsonbInput<Jsonified<T>>>`${JSON.stringify(value)}::jsonb`;
}

/**
 * A jsonb parameter from JSON text serialised by the caller: for a `preparedStatement`, whose inputs
 * are stand-ins while it is built (`jsonb(value)` would serialise the stand-in). `T` is the column's.
 */
export function jsonbText<T>(json: string): RawBuilder<JsonbInput<T>> {
  return sql<JsonbInput<T>>`${json}::jsonb`;
}

/**
 * One page of `query` (already filtered and ordered) and the count of all its matches, both from
 * the same FROM and WHERE so the two never disagree (docs/spec/contracts.md §7: `meta.total`).
 */
export async function pageOf<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: { limit: number; offset: number },
): Promise<{ rows: O[]; total: number }> {
  // $castTo: TypeScript cannot resolve Kysely's selection type for a generic DB; the SQL is fixed.
  const counted = await query
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`count(*)`.as('total'))
    .$castTo<{ total: number }>()
    .executeTakeFirst();
  const rows = await query.limit(page.limit).offset(page.offset).execute();
  return { rows, total: counted?.total ?? 0 };
}

// The plugin's own snake_case → camelCase, so a row read as jsonb is keyed exactly as Kysely keys it.
class ColumnNames extends CamelCasePlugin {
  toCamelCase(name: string): string {
    return this.camelCase(name);
  }
}
const columnNames = new ColumnNames();

declare const rowJsonOf: unique symbol;
/** A whole row of a table read as jsonb (`rowJson`), keys as in SQL; read it with `fromRowJson`. */
export interface RowJson<Row> {
  readonly [rowJsonOf]: Row;
}

/**
 * `to_jsonb(table.*)`: the whole row of `table` (its name or alias in the query) as one value, for a
 * join whose rows have clashing column names (a step with its grace period). `Row` is the table's
 * `Selectable<…>`; read the value with `fromRowJson`.
 */
export function rowJson<Row>(table: string): RawBuilder<RowJson<Row>> {
  return sql<RowJson<Row>>`to_jsonb(${sql.table(table)}.*)`;
}

/**
 * A `rowJson` value keyed as Kysely keys the row (camelCase); JSON gives dates back as strings and
 * jsonb columns as their values, hence `Jsonified<Row>`.
 */
export function fromRowJson<Row>(json: RowJson<Row>): Jsonified<Row> {
  const entries = Object.entries(json as object).map(([name, value]) => [
    columnNames.toCamelCase(name),
    value,
  ]);
  // The keys are the table's columns in camelCase; the values are as to_jsonb gives them.
  return Object.fromEntries(entries) as Jsonified<Row>;
}

// Repositories reach Kysely only through this package (docs/spec/style.md rule 4).
export {
  sql,
  type ColumnType,
  type RawBuilder,
  type Expression,
  type InsertObject,
  type Kysely,
  type Selectable,
  type Insertable,
  type Updateable,
} from 'kysely';
