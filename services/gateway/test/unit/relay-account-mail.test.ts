import { ManualClock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import type { MailOutboxStore, QueuedMail } from '../../src/domain/account-mail';
import type { TransactionRunner } from '../../src/domain/ports';
import { relayAccountMail } from '../../src/domain/relay-account-mail.use-case';

// The relay's story without I/O: an in-memory outbox and a mailer that fails on demand.
function outbox(rows: (QueuedMail & { due: Date; sent?: Date; error?: string })[]): MailOutboxStore {
  return {
    enqueue: async () => undefined,
    claimDue: async (_q, now, leaseMs, limit) => {
      const due = rows.filter((row) => row.sent === undefined && row.due <= now).slice(0, limit);
      for (const row of due) row.due = new Date(now.getTime() + leaseMs);
      return due.map(({ id, to, subject, text, attempts }) => ({ id, to, subject, text, attempts }));
    },
    markSent: async (_q, id, at) => {
      const row = rows.find((r) => r.id === id);
      if (row !== undefined) Object.assign(row, { sent: at, text: '', attempts: row.attempts + 1 });
    },
    markFailed: async (_q, id, next, error) => {
      const row = rows.find((r) => r.id === id);
      if (row !== undefined) Object.assign(row, { due: next, error, attempts: row.attempts + 1 });
    },
    countUnsent: async () => rows.filter((row) => row.sent === undefined).length,
  };
}

const db = {
  transaction: async (fn: (tx: Queryable) => Promise<unknown>) => fn({} as Queryable),
} as unknown as TransactionRunner;

describe('account mail relay', () => {
  it('when the mail server refuses twice, then the mail is retried 5 s and 10 s later and sent once', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z');
    const rows = [
      { id: 'mail_1', to: 'a@example.com', subject: 'S', text: 'link', attempts: 0, due: clock.now() },
    ];
    let refusals = 2;
    const sent: string[] = [];
    const mailer = {
      send: async (message: { text: string }) => {
        if (refusals > 0) {
          refusals -= 1;
          throw new Error('451 try later');
        }
        sent.push(message.text);
      },
      close: async () => undefined,
    };
    const deps = { db, mailOutbox: outbox(rows), mailer, clock };
    expect(await relayAccountMail(deps)).toEqual({ sent: 0, failed: 1 });
    expect(rows[0]?.due).toEqual(new Date('2026-01-01T00:00:05Z'));
    // Not due yet: nothing is tried.
    expect(await relayAccountMail(deps)).toEqual({ sent: 0, failed: 0 });
    clock.advance(5000);
    expect(await relayAccountMail(deps)).toEqual({ sent: 0, failed: 1 });
    expect(rows[0]?.due).toEqual(new Date('2026-01-01T00:00:15Z'));
    clock.advance(10_000);
    expect(await relayAccountMail(deps)).toEqual({ sent: 1, failed: 0 });
    expect(sent).toEqual(['link']);
    // Sent: the body (its link) is gone, and nothing goes out again.
    expect(rows[0]?.text).toBe('');
    clock.advance(3_600_000);
    expect(await relayAccountMail(deps)).toEqual({ sent: 0, failed: 0 });
    expect(sent).toHaveLength(1);
  });
});
