import type { Clock } from '@svc/clock';
import type { Environment } from './api-key';
import type { ApiKeyStore, IdempotencyStore, KeyAuthenticationStore, PlatformStore } from './ports';
import type { RouteTable } from './route-table';
import type { UpstreamClient } from './upstream.client';

/** Everything the gateway's entry points hand to its use cases. */
export interface GatewayContext {
  clock: Clock;
  environment: Environment;
  adminToken: string | undefined;
  platforms: PlatformStore;
  keys: ApiKeyStore;
  store: KeyAuthenticationStore;
  idempotency: IdempotencyStore;
  routes: RouteTable;
  upstreams: UpstreamClient;
  /** The generated OpenAPI document, served as is. */
  openapi: Record<string, unknown>;
}
