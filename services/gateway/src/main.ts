import { runServiceMain } from '@svc/service-runtime';
import { gatewayService } from './start';

runServiceMain(gatewayService);
