export {
  startBilling,
  billingService,
  billingMigrations,
  type BillingOverrides,
  type RunningBilling,
  type StartOverrides,
} from './start';
export { billingConfigSchema, type BillingConfig } from './config';
export { billingEmbedded } from './embedded';
