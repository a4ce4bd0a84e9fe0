import { embeddedServiceOf } from '@svc/service-runtime';
import { detectionService } from './start';

/** Detection inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const detectionEmbedded = embeddedServiceOf(detectionService);
