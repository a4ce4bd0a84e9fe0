import { gracePeriodReminder } from '@svc/contracts/enforcement';
import { signInternalToken } from '@svc/service-kit';
import { startReceiver, type Receiver } from './receivers';

// The bench's workload: 100 platforms with an endpoint each (the last 10 slow), and the events.

export const PLATFORMS = 100;
export const SLOW_PLATFORMS = 10;
export const JWT_SECRET = 'bench-internal-secret-0123456789-abcdef';

/** 100 platforms, one endpoint each, registered through the HTTP API; the last 10 are slow. */
export async function registerEndpoints(dispatcherUrl: string, slowMs: number): Promise<Receiver[]> {
  const receivers: Receiver[] = [];
  for (let p = 0; p < PLATFORMS; p += 1) {
    const platformId = `plat_bench_${String(p).padStart(3, '0')}`;
    const receiver = await startReceiver(platformId, p >= PLATFORMS - SLOW_PLATFORMS, slowMs);
    receivers.push(receiver);
    const token = signInternalToken(JWT_SECRET, {
      platformId,
      environment: 'sandbox',
      keyId: `key_${platformId}`,
      plan: 'enterprise',
    });
    const res = await fetch(`${dispatcherUrl}/v1/svc/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['grace_period.reminder'] }),
    });
    if (res.status !== 201)
      throw new Error(`registering ${platformId}: HTTP ${res.status} ${await res.text()}`);
  }

  return receivers;
}

/** Which receiver each event goes to: BENCH_SLOW_EVENTS per slow platform, the rest round-robin. */
export function targetsOf(receivers: Receiver[], totalEvents: number, slowEvents: number): Receiver[] {
  const healthy = receivers.filter((r) => !r.slow);
  const slow = receivers.filter((r) => r.slow);
  const targets: Receiver[] = [];
  for (let i = 0; i < totalEvents - slowEvents * SLOW_PLATFORMS; i += 1)
    targets.push(healthy[i % healthy.length] as Receiver);
  for (let k = 0; k < slowEvents; k += 1) for (const r of slow) targets.push(r);
  // Interleave the slow platforms' events with the others (deterministic shuffle).
  for (let i = targets.length - 1; i > 0; i -= 1) {
    const j = (i * 7919 + 13) % (i + 1);
    [targets[i], targets[j]] = [targets[j] as Receiver, targets[i] as Receiver];
  }
  return targets;
}

/**
 * One enforcement.grace_period.reminder envelope per target. Built before the clock starts: the
 * bench measures the dispatcher, not the service that would have emitted the events.
 */
export function envelopesFor(targets: Receiver[]) {
  const now = new Date();
  return targets.map((target, i) =>
    gracePeriodReminder.create(
      {
        gracePeriodId: `gp_${i}`,
        violationId: `viol_${i}`,
        boxId: 'box_bench',
        claimId: 'claim_bench',
        identityName: 'Ada Lovelace',
        boxOwnerPlatformId: 'plat_owner',
        policy: 'LICENSE',
        status: 'active',
        startedAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
        daysRemaining: 23,
        avatarIds: ['av_1'],
        reminderDay: 7,
      },
      { occurredAt: now, platformId: target.platformId },
    ),
  );
}
