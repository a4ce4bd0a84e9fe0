import { useState } from 'react';
import { formatDateTime, formatRemaining } from '../../api/format';
import { useObligations } from '../../api/platform-activity';
import { useClockNow } from '../../api/sandbox-clock';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { SandboxClock } from './SandboxClock';

/** One page of a list the API answers whole (the obligations are capped at 1000 each). */
function pageOf<T>(items: T[], offset: number): T[] {
  return items.slice(offset, offset + PAGE_SIZE);
}

/** What the platform must do: avatars to take down now, and running grace periods with their deadline. */
export function Obligations() {
  const obligations = useObligations();
  // Deadlines are counted down on the tenant's clock (the sandbox's, in the sandbox).
  const now = useClockNow();
  const [takedownOffset, setTakedownOffset] = useState(0);
  const [graceOffset, setGraceOffset] = useState(0);
  return (
    <section aria-labelledby="obligations-title">
      <h1 id="obligations-title">Obligations</h1>
      <QueryState isPending={obligations.isPending} error={obligations.error} what="obligations">
        {() => {
          if (obligations.data === undefined) return null;
          const { takedowns, grace_periods: gracePeriods, truncated } = obligations.data;
          return (
            <>
              {truncated ? (
                <p role="alert">Over 1000 obligations: the newest 1000 are shown. Deal with these first.</p>
              ) : null}
              <h2>Take down now</h2>
              {takedowns.length === 0 ? (
                <p className="empty">
                  Nothing to take down. An avatar whose grace period ends without a resolution appears here:
                  deactivate it, then DELETE /v1/svc/avatars/&#123;id&#125;.
                </p>
              ) : (
                <>
                  <div className="table-wrap" tabIndex={0}>
                    <table>
                      <caption className="visually-hidden">Avatars to take down, newest first</caption>
                      <thead>
                        <tr>
                          <th scope="col">Avatar</th>
                          <th scope="col">Identity</th>
                          <th scope="col">Creator</th>
                          <th scope="col">Enforced</th>
                        </tr>
                      </thead>
                      <tbody>
                        {pageOf(takedowns, takedownOffset).map((takedown) => (
                          <tr key={takedown.violation_id}>
                            <td>
                              {takedown.avatar_name} (<code>{takedown.avatar_id}</code>)
                            </td>
                            <td>{takedown.identity_name}</td>
                            <td>
                              <code>{takedown.creator_id}</code>
                            </td>
                            <td>{formatDateTime(takedown.enforced_at)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  <Pager
                    offset={takedownOffset}
                    limit={PAGE_SIZE}
                    total={takedowns.length}
                    onChange={setTakedownOffset}
                    label="Takedowns"
                  />
                </>
              )}
              <h2>Grace periods running</h2>
              {gracePeriods.length === 0 ? (
                <p className="empty">
                  No grace period running. When an avatar you host breaks a box, its grace period starts here:
                  license, modify or remove the avatar (or appeal) before it ends.
                </p>
              ) : (
                <>
                  <div className="table-wrap" tabIndex={0}>
                    <table>
                      <caption className="visually-hidden">Active and paused grace periods</caption>
                      <thead>
                        <tr>
                          <th scope="col">Identity</th>
                          <th scope="col">Avatars</th>
                          <th scope="col">Status</th>
                          <th scope="col">Resolve by</th>
                        </tr>
                      </thead>
                      <tbody>
                        {pageOf(gracePeriods, graceOffset).map((period) => (
                          <tr key={period.grace_period_id}>
                            <td>
                              {period.identity_name}
                              <br />
                              <code>{period.grace_period_id}</code>
                            </td>
                            <td>
                              {period.avatar_ids.map((id) => (
                                <code key={id}>{id} </code>
                              ))}
                            </td>
                            <td>
                              <span className="badge warn">{period.status}</span>
                            </td>
                            <td>
                              {period.status === 'paused'
                                ? 'Paused while an appeal is reviewed'
                                : `${formatDateTime(period.expires_at)} (${formatRemaining(Date.parse(period.expires_at), now)})`}
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  <Pager
                    offset={graceOffset}
                    limit={PAGE_SIZE}
                    total={gracePeriods.length}
                    onChange={setGraceOffset}
                    label="Grace periods"
                  />
                </>
              )}
            </>
          );
        }}
      </QueryState>
      <SandboxClock />
    </section>
  );
}
