export * from './database';
export * from './postgres';
export * from './pglite';
export * from './create-database';
export * from './migrations';
export * from './select-page';
export * from './row-values';
export * from './transaction-hook';
