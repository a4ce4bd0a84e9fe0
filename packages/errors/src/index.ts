export * from './codes';
export * from './app-error';
export * from './zod';
export * from './transient-failure';
