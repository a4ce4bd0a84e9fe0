export {
  startDetection,
  detectionService,
  detectionMigrations,
  type RunningDetection,
  type StartOverrides,
} from './start';
export { detectionConfigSchema, type DetectionConfig } from './config';
export { detectionEmbedded } from './embedded';
export {
  NameIndex,
  type MatchOptions,
  type SearchMode,
  type SearchOutcome,
  type SearchWork,
} from './domain/name-matching/name-index';
export {
  CLASSIFICATION_OF_LAYER,
  type MatchClassification,
  type MatchLayer,
  type MatchResult,
  type ProtectedIdentity,
} from './domain/name-matching/match-result';
export { normaliseName, type NormalisedName } from './domain/name-matching/normalise-name';
export { MATCH_THRESHOLDS, isAboveThreshold, type EnforcementLevel } from './domain/name-matching/thresholds';
export { editDistance, phoneticCodes, tokenSimilarity } from './domain/name-matching/confidence';
