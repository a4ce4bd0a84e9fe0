import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { formatDateTime } from '../../api/format';
import {
  keyLabel,
  useIssueKey,
  useKeys,
  useRevokeKey,
  useRotateKey,
  type KeySummary,
  type ShownSecret,
} from '../../api/platform';
import { useReadOnly } from '../../api/members';
import { Field, FormError, SelectField } from '../../components/Field';
import { ReadOnlyNote } from '../../components/ReadOnlyNote';
import { SecretOnce } from '../../components/SecretOnce';
import { QueryState } from '../../components/Status';
import { ConfirmDialog } from '../../components/ConfirmDialog';

/** What each scope reaches, in words (the API's KeyScope). */
const SCOPES: Record<KeySummary['scope'], string> = {
  full: 'Full access',
  read_only: 'Read-only (GET operations)',
  check_only: 'Identity checks only',
};

/** Asks before a key is revoked: it cannot be undone, and nothing replaces the key. */
function ConfirmRevoke({
  keyToRevoke,
  pending,
  onConfirm,
  onCancel,
}: {
  keyToRevoke: KeySummary;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const label = keyLabel(keyToRevoke);
  return (
    <ConfirmDialog
      titleId="revoke-title"
      title={`Revoke ${label}?`}
      confirm="Revoke key"
      confirming="Revoking…"
      pending={pending}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        Requests with this key
        {keyToRevoke.last4 === null ? null : (
          <>
            {' '}
            (ending in <code>{keyToRevoke.last4}</code>)
          </>
        )}{' '}
        are refused at once with <code>KEY_REVOKED</code>. No key replaces it: to change a secret without
        downtime, rotate instead. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

export function Keys() {
  const keys = useKeys();
  const issue = useIssueKey();
  const rotate = useRotateKey();
  const revoke = useRevokeKey();
  const readOnly = useReadOnly();
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const [confirming, setConfirming] = useState<KeySummary | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const error = issue.error ?? rotate.error ?? revoke.error;
  const create = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const name = String(data.get('name') ?? '').trim();
    const scope = String(data.get('scope') ?? 'full') as KeySummary['scope'];
    issue.mutate(name === '' ? { scope } : { name, scope }, {
      onSuccess: (secret) => {
        setShown(secret);
        form.reset();
      },
    });
  };
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p>
        Rotating a key issues a new secret and keeps the old one working for 24 hours; revoking refuses a key
        at once and issues nothing in its place. A restricted key reaches only what its scope allows: give a
        check-only key to the service that checks identities, a read-only one to reporting.
      </p>
      {shown === null ? null : <SecretOnce shown={shown} onDone={() => setShown(null)} />}
      {revoked === null ? null : (
        <p role="status" className="notice">
          {revoked} is revoked: the API refuses it from now on.
        </p>
      )}
      {readOnly ? (
        <ReadOnlyNote />
      ) : (
        <form className="inline-form" onSubmit={create} noValidate>
          <Field
            label="Name (optional)"
            name="name"
            maxLength={60}
            placeholder="Production checks"
            error={fieldError(issue.error, 'name')}
          />
          <SelectField
            label="Scope"
            name="scope"
            defaultValue="full"
            error={fieldError(issue.error, 'scope')}
          >
            {Object.entries(SCOPES).map(([scope, label]) => (
              <option key={scope} value={scope}>
                {label}
              </option>
            ))}
          </SelectField>
          <button type="submit" disabled={issue.isPending}>
            Create a key
          </button>
        </form>
      )}
      <FormError error={formError(error, ['name', 'scope'])} />
      {confirming === null ? null : (
        <ConfirmRevoke
          keyToRevoke={confirming}
          pending={revoke.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() =>
            revoke.mutate(confirming.id, {
              onSuccess: () => setRevoked(keyLabel(confirming)),
              onSettled: () => setConfirming(null),
            })
          }
        />
      )}
      <QueryState isPending={keys.isPending} error={keys.error} what="keys">
        {() =>
          keys.data === undefined || keys.data.length === 0 ? (
            <p className="empty">No keys yet. Create one to call the API from your platform.</p>
          ) : (
            <div className="table-wrap" tabIndex={0}>
              <table>
                <caption className="visually-hidden">Your API keys, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Secret ends in</th>
                    <th scope="col">Scope</th>
                    <th scope="col">Environment</th>
                    <th scope="col">Status</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {keys.data.map((key) => (
                    <tr key={key.id}>
                      <td>
                        {key.name ?? <span className="muted">Unnamed</span>}
                        <br />
                        <code className="muted">{key.id}</code>
                      </td>
                      <td>{key.last4 === null ? '–' : <code>…{key.last4}</code>}</td>
                      <td>{SCOPES[key.scope]}</td>
                      <td>{key.environment}</td>
                      <td>
                        <span className={`badge ${key.status === 'active' ? 'ok' : 'warn'}`}>
                          {key.status}
                        </span>
                        {key.status === 'expiring' && key.expiresAt !== null ? (
                          <> until {formatDateTime(key.expiresAt)}</>
                        ) : null}
                      </td>
                      <td>{key.lastUsedAt === null ? 'Never' : formatDateTime(key.lastUsedAt)}</td>
                      <td>{formatDateTime(key.createdAt)}</td>
                      <td>
                        {!readOnly && (key.status === 'active' || key.status === 'expiring') ? (
                          <div className="actions">
                            {key.status === 'active' ? (
                              <button
                                type="button"
                                className="secondary"
                                aria-label={`Rotate ${keyLabel(key)}`}
                                onClick={() => rotate.mutate(key, { onSuccess: setShown })}
                              >
                                Rotate
                              </button>
                            ) : null}
                            <button
                              type="button"
                              className="danger"
                              aria-label={`Revoke ${keyLabel(key)}`}
                              onClick={() => {
                                setRevoked(null);
                                setConfirming(key);
                              }}
                            >
                              Revoke
                            </button>
                          </div>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </section>
  );
}
