import { embeddedServiceOf } from '@svc/service-runtime';
import { webhookDispatcherService } from './start';

/** The dispatcher inside the embedded default: PGlite under DATA_DIR, the shared in-process bus, port 0. */
export const webhookDispatcherEmbedded = embeddedServiceOf(webhookDispatcherService);
