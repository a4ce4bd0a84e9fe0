export * from './events/envelope';
export * from './api/operation';
export * from './api/common';
export * from './api/openapi';
export * from './api/admin.operations';
