export * from './infrastructure';
export * from './wait';
export * from './cluster';
