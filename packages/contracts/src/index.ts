export * from './events/envelope';
export * from './api/operation';
export * from './api/common';
export * from './api/openapi';
export * from './api/admin.operations';
export * as sharedSchemas from './events/shared.schemas';
export * from './events/enforcement.events';
export * from './events/licensing.events';
export * from './events/billing.events';
