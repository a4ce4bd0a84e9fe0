// The contract of the gateway service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './operations';
export * from './dashboard';
export * from './account-mail';
export * from './account-security';
export * from './key-scopes';
export * from './dashboard-batch';
export * from './request-log';
export * from './members';
