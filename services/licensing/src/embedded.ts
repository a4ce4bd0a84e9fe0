import { embeddedServiceOf } from '@svc/service-runtime';
import { licensingService } from './start';

/** Licensing inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port, the registry and billing at their loopback URLs. */
export const licensingEmbedded = embeddedServiceOf(licensingService);
