// The database port lives in @svc/ports so that domain code names it without depending on
// storage (docs/adr/0019); re-exported here so existing `@svc/storage` imports keep working.
export type { Database, Queryable, QueryOptions, QueryResult, TransactionOptions } from '@svc/ports';
