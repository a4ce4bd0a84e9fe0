import { runServiceMain } from '@svc/service-runtime';
import { enforcementService } from './start';

runServiceMain(enforcementService);
