// What several services' contracts share (docs/adr/0018): the envelope and operation shapes, ids,
// names, pages, money values, the identity vocabulary, the snapshot and license-fee rules.
export * from './envelope';
export * as sharedSchemas from './event-values';
export * from './identity';
export * from './license-fees';
export * from './log-entry';
export * from './names';
export * from './operation';
export * from './schemas';
export * from './snapshots';
