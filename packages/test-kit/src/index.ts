export * from './infrastructure';
export * from './wait';
export * from './cluster';
export * from './e2e';
export * from './http';
export * from './broker';
export * from './service-harness';
export * from './embedded-under-test';
