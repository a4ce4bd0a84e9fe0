export * from './database';
export * from './postgres';
export * from './pglite';
export * from './create-database';
export * from './migrations';
export * from './row-values';
export * from './transaction-hook';
export * from './kysely';
