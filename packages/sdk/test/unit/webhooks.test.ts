import { Webhook } from 'standardwebhooks';
import { verifyWebhook, webhookEventType, WebhookVerificationError, type WebhookDelivery } from '../../src';

// Signed by the standardwebhooks library itself, as any Standard Webhooks sender would.
const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
const body = JSON.stringify({
  id: 'evt_1',
  type: 'grace_period.reminder',
  createdAt: new Date().toISOString(),
  data: { gracePeriodId: 'gp_1', reminderDay: 7 },
});

function signed(payload: string, at = new Date()) {
  return {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_1', at, payload),
  };
}

describe('verifyWebhook', () => {
  it('when the signature is right, then the event comes back parsed and typed, from plain or Fetch headers', () => {
    const event: WebhookDelivery = verifyWebhook(secret, body, signed(body));
    expect(webhookEventType(event)).toBe('grace_period.reminder');
    if ('type' in event && event.type === 'grace_period.reminder') expect(event.data.reminderDay).toBe(7);
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(signed(body)))).toEqual(event);
  });

  it('when the body was changed, the secret is another or the timestamp is old, then it throws WebhookVerificationError', () => {
    expect(() => verifyWebhook(secret, body.replace('7', '8'), signed(body))).toThrow(
      WebhookVerificationError,
    );
    const other = `whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`;
    expect(() => verifyWebhook(other, body, signed(body))).toThrow(WebhookVerificationError);
    const old = new Date(Date.now() - 10 * 60 * 1000);
    expect(() => verifyWebhook(secret, body, signed(body, old))).toThrow(WebhookVerificationError);
    const { 'webhook-signature': _dropped, ...unsigned } = signed(body);
    expect(() => verifyWebhook(secret, body, unsigned)).toThrow(WebhookVerificationError);
  });
});
