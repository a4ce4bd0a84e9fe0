import { runServiceMain } from '@svc/service-runtime';
import { licensingService } from './start';

runServiceMain(licensingService);
