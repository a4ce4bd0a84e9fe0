import { Webhook } from 'standardwebhooks';
import { generateSecret, sign, webhookHeaders } from '../../src/domain/webhook-signature';

// Verified with the standardwebhooks library, not with our own code.

describe('Standard Webhooks signatures', () => {
  const body = JSON.stringify({ id: 'evt_abc', type: 'grace_period.started', data: { x: 1 } });

  it('when a secret is generated, then it is whsec_ with 24+ random bytes in base64', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(generateSecret()).not.toBe(secret);
  });

  it('when a message is signed, then standardwebhooks verifies it', () => {
    const secret = generateSecret();
    const headers = webhookHeaders({ id: 'evt_abc', timestamp: new Date(), body, secrets: [secret] });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('when the signature matches the library’s own, then the scheme is the same', () => {
    const secret = generateSecret();
    const at = new Date();
    expect(sign(secret, 'msg_1', Math.floor(at.getTime() / 1000), body)).toBe(
      new Webhook(secret).sign('msg_1', at, body),
    );
  });

  it('when more endpoints sign than the keys kept in memory, then every signature is still its own secret’s', () => {
    // 4,096 keys are kept; the first secrets are signed again after they were pushed out.
    const secrets = Array.from({ length: 4_200 }, () => generateSecret());
    const at = new Date();
    const seconds = Math.floor(at.getTime() / 1000);
    for (const round of [0, 1]) {
      for (const [i, secret] of secrets.entries()) {
        if (round === 1 && i % 50 !== 0) continue;
        expect(sign(secret, `msg_${i}`, seconds, body)).toBe(new Webhook(secret).sign(`msg_${i}`, at, body));
      }
    }
  });

  it('when the body or the secret differs, then verification fails', () => {
    const secret = generateSecret();
    const headers = webhookHeaders({ id: 'evt_abc', timestamp: new Date(), body, secrets: [secret] });
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });

  it('when a secret is being rotated, then both signatures are sent and each secret verifies', () => {
    const next = generateSecret();
    const previous = generateSecret();
    const headers = webhookHeaders({ id: 'evt_rot', timestamp: new Date(), body, secrets: [next, previous] });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(next).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });
});
