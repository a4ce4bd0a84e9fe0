import { ConfigError, loadConfig } from '@svc/config';
import { gatewayConfigSchema } from '../../src/config';

// deploy/docker-compose.yml's values for the gateway.
const COMPOSE = {
  INTERNAL_JWT_SECRET: 'compose-only-internal-jwt-secret-0123456789',
  ADMIN_TOKEN: 'compose-only-admin-token',
  DATABASE_URL: 'postgres://postgres:postgres@postgres:5432/gateway',
};

function refusedKeys(env: Record<string, string>): string[] {
  try {
    loadConfig(gatewayConfigSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => p.key);
    throw err;
  }
  return [];
}

describe('gateway configuration', () => {
  it('when compose is started with SVC_ENVIRONMENT=production and its defaults, then the gateway refuses every one of them', () => {
    expect(refusedKeys({ ...COMPOSE, SVC_ENVIRONMENT: 'production' })).toEqual([
      'INTERNAL_JWT_SECRET',
      'DATABASE_URL',
      'ADMIN_TOKEN',
    ]);
  });

  it('when the same defaults run as a sandbox, then the gateway starts with them', () => {
    expect(refusedKeys({ ...COMPOSE, SVC_ENVIRONMENT: 'sandbox' })).toEqual([]);
  });

  it('when production sets values of its own, then they are kept', () => {
    const config = loadConfig(gatewayConfigSchema, {
      SVC_ENVIRONMENT: 'production',
      INTERNAL_JWT_SECRET: 'k3u9V0a8x1QeR7tYp2LmN5bC4dF6gH8j',
      ADMIN_TOKEN: '2f9a4c1e7b3d8f60a5c2e9b1d4f7a0c3',
      DATABASE_URL: 'postgres://svc:Zq81vJt%2F@svc-postgres-pooler:5432/gateway',
    });

    expect(config.SVC_ENVIRONMENT).toBe('production');
    expect(config.ADMIN_TOKEN).toBe('2f9a4c1e7b3d8f60a5c2e9b1d4f7a0c3');
  });
});
