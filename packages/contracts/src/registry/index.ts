// The contract of the registry service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './events';
export * from './operations';
export * from './snapshots';
export * from './claim.schemas';
export * from './box-policy-config.schemas';
export * from './box.schemas';
