import { embeddedServiceOf } from '@svc/service-runtime';
import { enforcementService } from './start';

/** Enforcement inside the embedded default: PGlite under DATA_DIR, the in-process bus, detection at its loopback URL. */
export const enforcementEmbedded = embeddedServiceOf(enforcementService);
