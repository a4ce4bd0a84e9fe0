import type { Queryable } from '@svc/storage';
import type { UsageFigures, UsageStore } from '../domain/ports';
import { toNumber } from '@svc/storage';

interface UsageRow {
  subscribers: unknown;
  messages: unknown;
  revenue_cents: unknown;
  royalty_due_cents: unknown;
}

/** Usage per license and period (billing.usage.reported); a higher version replaces a lower one. */
export class UsageRepository implements UsageStore {
  async record(
    tx: Queryable,
    fact: UsageFigures & { licenseId: string; period: string; version: number },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO license_usage (license_id, period, version, subscribers, messages, revenue_cents, royalty_due_cents)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (license_id, period) DO UPDATE SET version = EXCLUDED.version, subscribers = EXCLUDED.subscribers,
         messages = EXCLUDED.messages, revenue_cents = EXCLUDED.revenue_cents, royalty_due_cents = EXCLUDED.royalty_due_cents
       WHERE license_usage.version < EXCLUDED.version`,
      [
        fact.licenseId,
        fact.period,
        fact.version,
        fact.subscribers,
        fact.messages,
        fact.revenueCents,
        fact.royaltyDueCents,
      ],
    );
  }

  async find(q: Queryable, licenseId: string, period: string): Promise<UsageFigures | null> {
    const { rows } = await q.query<UsageRow>(
      'SELECT subscribers, messages, revenue_cents, royalty_due_cents FROM license_usage WHERE license_id = $1 AND period = $2',
      [licenseId, period],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      subscribers: toNumber(row.subscribers),
      messages: toNumber(row.messages),
      revenueCents: toNumber(row.revenue_cents),
      royaltyDueCents: toNumber(row.royalty_due_cents),
    };
  }
}
