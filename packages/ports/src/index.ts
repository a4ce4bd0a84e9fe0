export type * from './database';
