export {
  startLicensing,
  licensingService,
  licensingMigrations,
  type LicensingOverrides,
  type RunningLicensing,
  type StartOverrides,
} from './start';
export { licensingConfigSchema, type LicensingConfig } from './config';
export { licensingEmbedded } from './embedded';
