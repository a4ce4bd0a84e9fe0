import { useState, type FormEvent } from 'react';
import type { components } from '@svc/sdk';
import { fieldError, formError } from '../../api/form-errors';
import { formatDate, formatDateTime, formatMoney } from '../../api/format';
import {
  useCancelLicense,
  useRenewLicense,
  useReportUsage,
  type LicenseTier,
} from '../../api/platform-activity';
import { Field, FormError, SelectField } from '../../components/Field';
import { openAsModal } from '../../components/ConfirmDialog';

// What a platform does with an active license from its dashboard (issue #32, "Platforms"): report
// a period's usage (or correct it), renew it, cancel it. Each is the public API's operation, with
// the API's message on the field it concerns.

type License = components['schemas']['License'];

const TIERS: LicenseTier[] = ['personal', 'creator', 'commercial', 'enterprise'];

/** A number typed in a form: what the API is sent (an empty box is 0; a non-number is its 400). */
function amountOf(value: FormDataEntryValue | null): number {
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? 0 : Number(text);
}

function ReportUsage({ license, onDone }: { license: License; onDone: (notice: string) => void }) {
  const report = useReportUsage(license.id);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    report.mutate(
      {
        period: String(form.get('period') ?? '').trim(),
        metrics: { subscribers: amountOf(form.get('subscribers')), messages: amountOf(form.get('messages')) },
        revenue: {
          subscriptions: amountOf(form.get('subscriptions')),
          messages: amountOf(form.get('messageRevenue')),
          tips: amountOf(form.get('tips')),
        },
      },
      {
        onSuccess: (result) =>
          onDone(
            `Reported ${result.period}${result.version > 1 ? ` (correction ${result.version - 1})` : ''}: revenue ${formatMoney(
              result.totalRevenue,
              license.currency,
            )}, royalty due ${formatMoney(result.royaltyDue, license.currency)} by ${formatDate(result.dueDate)}.`,
          ),
      },
    );
  };
  const error = report.error;
  return (
    <form aria-labelledby="report-usage-title" onSubmit={submit} noValidate>
      <h3 id="report-usage-title">Report usage</h3>
      <p className="hint">A second report of a period corrects the first; the royalty is computed again.</p>
      <Field
        label="Period"
        name="period"
        defaultValue={license.usage.currentPeriod}
        placeholder="YYYY-MM"
        error={fieldError(error, 'period')}
      />
      <div className="field-row">
        <Field
          label="Subscribers"
          name="subscribers"
          inputMode="numeric"
          error={fieldError(error, 'metrics.subscribers', 'metrics')}
        />
        <Field
          label="Messages"
          name="messages"
          inputMode="numeric"
          error={fieldError(error, 'metrics.messages')}
        />
      </div>
      <div className="field-row">
        <Field
          label={`Subscription revenue (${license.currency})`}
          name="subscriptions"
          inputMode="decimal"
          error={fieldError(error, 'revenue.subscriptions', 'revenue')}
        />
        <Field
          label={`Message revenue (${license.currency})`}
          name="messageRevenue"
          inputMode="decimal"
          error={fieldError(error, 'revenue.messages')}
        />
        <Field
          label={`Tips (${license.currency})`}
          name="tips"
          inputMode="decimal"
          error={fieldError(error, 'revenue.tips')}
        />
      </div>
      <FormError
        error={formError(error, [
          'period',
          'metrics',
          'metrics.subscribers',
          'metrics.messages',
          'revenue',
          'revenue.subscriptions',
          'revenue.messages',
          'revenue.tips',
        ])}
      />
      <button type="submit" disabled={report.isPending}>
        {report.isPending ? 'Reporting…' : 'Report usage'}
      </button>
    </form>
  );
}

function Renew({ license, onDone }: { license: License; onDone: (notice: string) => void }) {
  const renew = useRenewLicense(license.id);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const tier = String(form.get('tier') ?? '');
    renew.mutate(
      { term: amountOf(form.get('term')), tier: tier === '' ? undefined : (tier as LicenseTier) },
      {
        onSuccess: (renewed) =>
          onDone(
            renewed.pendingUpgrade === undefined || renewed.pendingUpgrade === null
              ? `Renewed: valid until ${formatDateTime(renewed.newExpiry)} at ${formatMoney(renewed.monthlyFee, renewed.currency)} a month.`
              : `The ${renewed.pendingUpgrade.tier} tier waits for the owner's approval: nothing is renewed until they approve it.`,
          ),
      },
    );
  };
  return (
    <form aria-labelledby="renew-title" onSubmit={submit} noValidate>
      <h3 id="renew-title">Renew</h3>
      <p className="hint">Adds months to the current end ({formatDateTime(license.expiresAt)}).</p>
      <div className="field-row">
        <Field
          label="Months to add"
          name="term"
          inputMode="numeric"
          defaultValue="12"
          hint="1 to 36"
          error={fieldError(renew.error, 'term')}
        />
        <SelectField label="Tier" name="tier" defaultValue="" error={fieldError(renew.error, 'tier')}>
          <option value="">Keep {license.tier}</option>
          {TIERS.filter((tier) => tier !== license.tier).map((tier) => (
            <option key={tier} value={tier}>
              Change to {tier}
            </option>
          ))}
        </SelectField>
      </div>
      <FormError error={formError(renew.error, ['term', 'tier'])} />
      <button type="submit" disabled={renew.isPending}>
        {renew.isPending ? 'Renewing…' : 'Renew license'}
      </button>
    </form>
  );
}

/** Asks how and why before a license is cancelled: cancelling cannot be undone. */
function ConfirmCancel({
  license,
  onDone,
  onClose,
}: {
  license: License;
  onDone: (notice: string) => void;
  onClose: () => void;
}) {
  const cancel = useCancelLicense(license.id);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const reason = String(form.get('reason') ?? '').trim();
    const effectiveDate = form.get('effectiveDate') === 'immediate' ? 'immediate' : 'end_of_billing_period';
    cancel.mutate(
      { reason: reason === '' ? undefined : reason, effectiveDate },
      {
        onSuccess: (cancelled) => {
          onDone(
            cancelled.cancelsAt === undefined
              ? `Cancelled${cancelled.cancelledAt === undefined ? '' : ` ${formatDateTime(cancelled.cancelledAt)}`}.`
              : `Cancels ${formatDateTime(cancelled.cancelsAt)}: it stays active until then.`,
          );
          onClose();
        },
      },
    );
  };
  return (
    <dialog ref={openAsModal} aria-labelledby="cancel-title" onCancel={onClose}>
      <form onSubmit={submit} noValidate>
        <h2 id="cancel-title">
          Cancel the {license.tier} license of {license.identityName}?
        </h2>
        <fieldset>
          <legend>When</legend>
          <label>
            <input type="radio" name="effectiveDate" value="end_of_billing_period" defaultChecked /> At the
            end of this billing month (it stays active until then)
          </label>
          <label>
            <input type="radio" name="effectiveDate" value="immediate" /> At once
          </label>
        </fieldset>
        <Field label="Reason (optional)" name="reason" error={fieldError(cancel.error, 'reason')} />
        <FormError error={formError(cancel.error, ['reason'])} />
        <div className="actions">
          <button type="submit" className="danger" disabled={cancel.isPending}>
            {cancel.isPending ? 'Cancelling…' : 'Cancel license'}
          </button>
          <button type="button" className="secondary" onClick={onClose}>
            Keep it
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** An active license's actions; nothing for one that has ended. */
export function LicenseActions({ license }: { license: License }) {
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [cancelling, setCancelling] = useState(false);
  return (
    <section aria-labelledby="manage-title">
      <h2 id="manage-title">Manage this license</h2>
      <p role="status" className="notice">
        {notice}
      </p>
      {license.status !== 'active' ? (
        <p className="empty">
          This license is {license.status}: there is nothing to report, renew or cancel.
        </p>
      ) : (
        <>
          <ReportUsage license={license} onDone={setNotice} />
          <Renew license={license} onDone={setNotice} />
          <h3>Cancel</h3>
          <button type="button" className="danger" onClick={() => setCancelling(true)}>
            Cancel license…
          </button>
          {cancelling ? (
            <ConfirmCancel license={license} onDone={setNotice} onClose={() => setCancelling(false)} />
          ) : null}
        </>
      )}
    </section>
  );
}
