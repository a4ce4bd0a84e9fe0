export {
  startGateway,
  gatewayMigrations,
  gatewayService,
  type RunningGateway,
  type StartOverrides,
} from './start';
export { buildGateway, type Gateway, type GatewayOptions } from './gateway';
export { gatewayConfigSchema, type GatewayConfig } from './config';
export { routesFrom, type Route } from './domain/route-table';
export { generateApiKey } from './domain/api-key';
export { newTotpSecret, totpUri } from './domain/second-factor';
