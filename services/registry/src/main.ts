import { runServiceMain } from '@svc/service-runtime';
import { registryService } from './start';

runServiceMain(registryService);
