import { loadConfig } from '@svc/config';
import { webhookDispatcherConfigSchema } from '../../src/config';

describe('webhook dispatcher configuration', () => {
  it('when AMQP_URL is unset, then there is no guest:guest fallback: it stays unset (the embedded bus, or a start error)', () => {
    expect(loadConfig(webhookDispatcherConfigSchema, {}).AMQP_URL).toBeUndefined();
  });

  it("when production names RabbitMQ's guest user, then it is refused", () => {
    expect(() =>
      loadConfig(webhookDispatcherConfigSchema, {
        SVC_ENVIRONMENT: 'production',
        INTERNAL_JWT_SECRET: 'k3u9V0a8x1QeR7tYp2LmN5bC4dF6gH8j',
        AMQP_URL: 'amqp://guest:guest@rabbitmq:5672',
      }),
    ).toThrow(/AMQP_URL: has a password published/);
  });
});
