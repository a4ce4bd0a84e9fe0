export * from './ordering';
export * from './projection-table';
export * from './read-through';
export * from './subscription';
