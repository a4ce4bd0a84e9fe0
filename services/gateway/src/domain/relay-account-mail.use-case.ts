import type { Clock } from '@svc/clock';
import type { Mailer } from '@svc/mail';
import { nextAttemptDelayMs, type MailOutboxStore } from './account-mail';
import type { TransactionRunner } from './ports';

/** What one pass of the relay did. */
export interface RelayPass {
  sent: number;
  failed: number;
}

/** A claimed message is another relay's again after this long (its relay stopped mid-send). */
export const CLAIM_LEASE_MS = 2 * 60 * 1000;
/**
 * A relay starts a send only while its claim surely holds: the last third of the lease is left to
 * the send under way (the mailer's timeouts are 10 s a phase) and to the replicas' clocks.
 */
const CLAIM_MARGIN_MS = CLAIM_LEASE_MS / 3;

/**
 * One pass of the mail relay: the due messages of the outbox are claimed for CLAIM_LEASE_MS
 * (another replica's relay skips them), sent one by one, and marked sent, or rescheduled with a growing delay when the mail
 * server refuses or is unreachable. A failed send loses nothing: the change it tells about
 * committed with its row. At least once: a crash between the send and its commit sends it again.
 * A relay that stalls past its claim (a paused process, slow sends) sends none of the rest: another
 * relay may have claimed and sent them since (issue #34).
 */
export async function relayAccountMail(
  deps: {
    db: TransactionRunner;
    mailOutbox: MailOutboxStore;
    mailer: Mailer;
    clock: Clock;
    onFailure?: (mail: { id: string; to: string; attempts: number }, err: unknown) => void;
  },
  limit = 20,
): Promise<RelayPass> {
  // Claimed in a short transaction of its own: no transaction stays open across an SMTP exchange.
  const claimedAt = deps.clock.now().getTime();
  const due = await deps.mailOutbox.claimDue(deps.db, new Date(claimedAt), CLAIM_LEASE_MS, limit);
  const surelyHeldUntil = claimedAt + CLAIM_LEASE_MS - CLAIM_MARGIN_MS;
  const pass: RelayPass = { sent: 0, failed: 0 };
  for (const mail of due) {
    // The rest stay claimed until the lease ends, then any relay claims them again.
    if (deps.clock.now().getTime() >= surelyHeldUntil) break;
    try {
      await deps.mailer.send({ to: mail.to, subject: mail.subject, text: mail.text });
      await deps.mailOutbox.markSent(deps.db, mail.id, deps.clock.now());
      pass.sent += 1;
    } catch (err) {
      const attempts = mail.attempts + 1;
      const next = new Date(deps.clock.now().getTime() + nextAttemptDelayMs(attempts));
      await deps.mailOutbox.markFailed(
        deps.db,
        mail.id,
        next,
        err instanceof Error ? err.message : String(err),
      );
      deps.onFailure?.({ id: mail.id, to: mail.to, attempts }, err);
      pass.failed += 1;
    }
  }
  return pass;
}
