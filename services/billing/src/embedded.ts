import { embeddedServiceOf } from '@svc/service-runtime';
import { billingService } from './start';

/** Billing inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port, licensing at its loopback URL. */
export const billingEmbedded = embeddedServiceOf(billingService);
