import { runServiceMain } from '@svc/service-runtime';
import { webhookDispatcherService } from './start';

runServiceMain(webhookDispatcherService);
