import { runServiceMain } from '@svc/service-runtime';
import { billingService } from './start';

runServiceMain(billingService);
