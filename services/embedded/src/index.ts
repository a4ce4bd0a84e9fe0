export {
  startEmbedded,
  EMBEDDED_SERVICES,
  type EmbeddedDeps,
  type EmbeddedService,
  type RunningEmbedded,
} from './embedded';
export { embeddedConfigSchema, type EmbeddedConfig } from './config';
