import { createHash } from 'node:crypto';
import { publicEventId } from '../../src/domain/public-events';

// A public event id must never change for the same internal event: a redelivery after an upgrade
// has to find the delivery recorded before it (one per endpoint and public event id).

/** The id as first written (BigInt arithmetic), the reference the faster version must equal. */
function reference(sourceId: string, type: string): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let n = BigInt(`0x${createHash('sha256').update(`${sourceId}:${type}`).digest('hex')}`);
  let out = '';
  while (out.length < 24) {
    out += alphabet[Number(n % 62n)];
    n /= 62n;
  }
  return `evt_${out}`;
}

// Derived by the BigInt version on the commit before this change.
const PINNED = [
  'evt_jG6eMla38ywFlnJrC8pGL9Pe',
  'evt_vL0lAczsQIoNHQP9eZv7goiy',
  'evt_M8tUBvfD8wq6RrlxSqdzIPYt',
];

describe('public event ids', () => {
  it('when ids are derived, then they are the ones derived before (pinned)', () => {
    expect(publicEventId('evt_x', 'payment.due')).toBe(PINNED[0]);
    expect(publicEventId('evt_01JD3Q9W8Z', 'grace_period.started')).toBe(PINNED[1]);
    expect(publicEventId('whe_1:2026-11-28T10:00:00.000Z', 'webhook.endpoint_disabled')).toBe(PINNED[2]);
  });

  it('when many source ids are derived, then each equals the BigInt reference', () => {
    for (let i = 0; i < 2000; i += 1) {
      const source = `evt_${i.toString(36)}_${'z'.repeat(i % 7)}`;
      expect(publicEventId(source, 'grace_period.reminder')).toBe(reference(source, 'grace_period.reminder'));
    }
  });
});
