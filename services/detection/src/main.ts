import { runServiceMain } from '@svc/service-runtime';
import { detectionService } from './start';

runServiceMain(detectionService);
