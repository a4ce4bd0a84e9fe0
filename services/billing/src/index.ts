export { startBilling, billingMigrations, type RunningBilling, type StartOverrides } from './start';
export { billingConfigSchema, type BillingConfig } from './config';
export { billingEmbedded } from './embedded';
