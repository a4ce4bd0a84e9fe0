// Every service's contract in one import (docs/adr/0018). A service may import a narrower one:
// `@svc/contracts/common`, `@svc/contracts/<service>`.
export * from './common';
export * from './openapi';
export * from './catalogue';
export * from './topology';
export * from './gateway';
export * from './registry';
export * from './webhook-dispatcher';
export * from './licensing';
export * from './billing';
export * from './detection';
export * from './enforcement';
export * from './public-document';
