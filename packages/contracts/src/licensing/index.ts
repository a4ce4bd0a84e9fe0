// The contract of the licensing service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './events';
export * from './operations';
export * from './snapshots';
export * from './transparency';
