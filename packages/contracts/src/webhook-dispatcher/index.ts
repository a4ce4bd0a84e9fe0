// The contract of the webhook-dispatcher service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './event-types';
export * from './events';
export * from './operations';
export * from './public-events';
