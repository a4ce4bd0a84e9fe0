import { useState } from 'react';
import { formError } from '../../api/form-errors';
import { useIssueKey, useKeys, useRevokeKey, useRotateKey, type ShownSecret } from '../../api/platform';
import { FormError } from '../../components/Field';
import { SecretOnce } from '../../components/SecretOnce';
import { QueryState } from '../../components/Status';

export function Keys() {
  const keys = useKeys();
  const issue = useIssueKey();
  const rotate = useRotateKey();
  const revoke = useRevokeKey();
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const error = issue.error ?? rotate.error ?? revoke.error;
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p>
        Rotating a key keeps the old one working for 24 hours; revoking refuses it at once. Either way a new
        key is issued.
      </p>
      {shown === null ? null : <SecretOnce shown={shown} onDone={() => setShown(null)} />}
      <p>
        <button
          type="button"
          disabled={issue.isPending}
          onClick={() => issue.mutate(undefined, { onSuccess: setShown })}
        >
          Create a key
        </button>
      </p>
      <FormError error={formError(error, [])} />
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
                    <th scope="col">Key</th>
                    <th scope="col">Environment</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {keys.data.map((key) => (
                    <tr key={key.id}>
                      <td>
                        <code>{key.id}</code>
                      </td>
                      <td>{key.environment}</td>
                      <td>
                        <span className={`badge ${key.status === 'active' ? 'ok' : 'warn'}`}>
                          {key.status}
                        </span>
                        {key.status === 'expiring' && key.expiresAt !== null ? (
                          <> until {new Date(key.expiresAt).toLocaleString()}</>
                        ) : null}
                      </td>
                      <td>{new Date(key.createdAt).toLocaleString()}</td>
                      <td>
                        {key.status === 'active' ? (
                          <div className="actions">
                            <button
                              type="button"
                              className="secondary"
                              aria-label={`Rotate ${key.id}`}
                              onClick={() => rotate.mutate(key.id, { onSuccess: setShown })}
                            >
                              Rotate
                            </button>
                            <button
                              type="button"
                              className="danger"
                              aria-label={`Revoke ${key.id}`}
                              onClick={() => revoke.mutate(key.id, { onSuccess: setShown })}
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
