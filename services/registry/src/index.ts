export {
  startRegistry,
  registryService,
  registryMigrations,
  type RunningRegistry,
  type StartOverrides,
} from './start';
export { registryConfigSchema, type RegistryConfig } from './config';
export { registryEmbedded } from './embedded';
