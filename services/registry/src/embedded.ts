import { embeddedServiceOf } from '@svc/service-runtime';
import { registryService } from './start';

/** The registry inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const registryEmbedded = embeddedServiceOf(registryService);
