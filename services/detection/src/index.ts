export {
  startDetection,
  detectionService,
  detectionMigrations,
  type RunningDetection,
  type StartOverrides,
} from './start';
export { detectionConfigSchema, type DetectionConfig } from './config';
export { detectionEmbedded } from './embedded';
// The name-matching engine is its own package (@svc/name-matching): benches and tests import it there.
