export {
  startEnforcement,
  enforcementService,
  enforcementMigrations,
  type RunningEnforcement,
  type EnforcementOverrides,
  type StartOverrides,
} from './start';
export { enforcementConfigSchema, type EnforcementConfig } from './config';
export { enforcementEmbedded } from './embedded';
export type { DetectionPort, AvatarToEvaluate } from './domain/detection.client';
