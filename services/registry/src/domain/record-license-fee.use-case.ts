import { paymentDue } from '@svc/contracts/billing';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Queryable } from '@svc/ports';
import type { BoxStatsStore } from './ports';

/**
 * billing.payment.due of kind fee: a license's fee for a period counts in its box's revenue
 * (issue #15). Each notice carries the period's whole current fee and a version, so the highest
 * version is kept and a redelivered or late notice changes nothing. Royalty notices are not
 * revenue of their own (the revenue they are a share of comes with billing.usage.reported).
 */
export async function recordLicenseFeeEvent(
  stats: BoxStatsStore,
  tx: Queryable,
  received: EventEnvelope,
): Promise<void> {
  const { data } = paymentDue.parse(received);
  if (data.kind !== 'fee') return;
  await stats.recordFee(tx, {
    licenseId: data.licenseId,
    period: data.period,
    version: data.version,
    boxId: data.boxId,
    licenseePlatformId: data.payerPlatformId,
    amountCents: data.amountCents,
  });
}
