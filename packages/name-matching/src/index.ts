// The name-matching engine (README.md): the index and its search, the match it answers, how a
// name is normalised and scored, the thresholds per enforcement level, and the compact tables
// (with their snapshot reader) that detection's identity records are stored in too.
export * from './name-index';
export * from './match-result';
export * from './normalise-name';
export * from './thresholds';
export * from './confidence';
export * from './compact-tables';
export * from './match-keys';
