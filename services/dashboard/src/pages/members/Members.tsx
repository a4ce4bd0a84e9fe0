import { useState } from 'react';
import { useNavigate } from 'react-router';
import { formError } from '../../api/form-errors';
import { formatDate, formatDateTime } from '../../api/format';
import {
  MEMBER_ROLES,
  useChangeMemberRole,
  useMemberRole,
  useMembers,
  useRemoveMember,
  useWithdrawInvitation,
  type Member,
} from '../../api/members';
import { FormError } from '../../components/Field';
import { QueryState } from '../../components/Status';
import { ConfirmRemove, InviteForm, RoleChange } from './MemberControls';

export function Members() {
  const myRole = useMemberRole();
  const isOwner = myRole === 'owner';
  const members = useMembers();
  const change = useChangeMemberRole();
  const remove = useRemoveMember();
  const withdraw = useWithdrawInvitation();
  const navigate = useNavigate();
  const [notice, setNotice] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Member | null>(null);
  // One action at a time: a new one clears what the last one said.
  const startAction = () => {
    change.reset();
    remove.reset();
    withdraw.reset();
    setNotice(null);
  };
  const actionError = change.error ?? remove.error ?? withdraw.error;
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      <p>
        Everyone who signs in to this account, each with a role the API enforces on every call. An invitation
        is mailed as a link that works 7 days.
      </p>
      {isOwner ? null : (
        <p>
          Only owners invite, change and remove members.
          {myRole === null ? null : (
            <>
              {' '}
              Your role is <strong>{MEMBER_ROLES[myRole].label}</strong>:{' '}
              {MEMBER_ROLES[myRole].explanation.charAt(0).toLowerCase()}
              {MEMBER_ROLES[myRole].explanation.slice(1)}
            </>
          )}
        </p>
      )}
      {notice === null ? null : (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {isOwner ? (
        <InviteForm
          onInvited={(invitation) => {
            startAction();
            setNotice(
              `Invitation sent to ${invitation.email}: the link works until ${formatDateTime(invitation.expiresAt)}.`,
            );
          }}
        />
      ) : null}
      {confirming === null ? null : (
        <ConfirmRemove
          member={confirming}
          pending={remove.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() =>
            remove.mutate(confirming, {
              onSuccess: () => {
                if (confirming.you) void navigate('/sign-in', { replace: true });
                else setNotice(`${confirming.name} is removed.`);
              },
              onSettled: () => setConfirming(null),
            })
          }
        />
      )}
      <QueryState isPending={members.isPending} error={members.error} what="members">
        {() =>
          members.data === undefined ? null : (
            <>
              <h2>Current members</h2>
              <FormError error={formError(actionError, [])} />
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">The members, oldest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">E-mail</th>
                      <th scope="col">Role</th>
                      <th scope="col">Joined</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {members.data.members.map((member) => (
                      <tr key={member.accountId}>
                        <td>
                          {member.name}
                          {member.you ? <span className="muted"> (you)</span> : null}
                        </td>
                        <td>{member.email}</td>
                        <td>
                          {isOwner ? (
                            <RoleChange
                              key={member.role}
                              member={member}
                              pending={change.isPending}
                              onChange={(role) => {
                                startAction();
                                change.mutate(
                                  { member, role },
                                  {
                                    onSuccess: (changed) =>
                                      setNotice(
                                        `${changed.name} is now ${MEMBER_ROLES[changed.role].label}.`,
                                      ),
                                  },
                                );
                              }}
                            />
                          ) : (
                            MEMBER_ROLES[member.role].label
                          )}
                        </td>
                        <td>{formatDate(member.joinedAt)}</td>
                        <td>
                          {member.you || isOwner ? (
                            <button
                              type="button"
                              className="danger"
                              aria-label={member.you ? undefined : `Remove ${member.name}`}
                              onClick={() => {
                                startAction();
                                setConfirming(member);
                              }}
                            >
                              {member.you ? 'Leave' : 'Remove'}
                            </button>
                          ) : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <h2>Pending invitations</h2>
              {members.data.invitations.length === 0 ? (
                <p className="empty">No pending invitations.</p>
              ) : (
                <div className="table-wrap" tabIndex={0}>
                  <table>
                    <caption className="visually-hidden">Pending invitations, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">E-mail</th>
                        <th scope="col">Role</th>
                        <th scope="col">Invited by</th>
                        <th scope="col">Expires</th>
                        {isOwner ? <th scope="col">Actions</th> : null}
                      </tr>
                    </thead>
                    <tbody>
                      {members.data.invitations.map((invitation) => (
                        <tr key={invitation.id}>
                          <td>{invitation.email}</td>
                          <td>{MEMBER_ROLES[invitation.role].label}</td>
                          <td>
                            {invitation.invitedBy}
                            <br />
                            <span className="muted">{formatDate(invitation.invitedAt)}</span>
                          </td>
                          <td>{formatDateTime(invitation.expiresAt)}</td>
                          {isOwner ? (
                            <td>
                              <button
                                type="button"
                                className="secondary"
                                aria-label={`Withdraw the invitation to ${invitation.email}`}
                                disabled={withdraw.isPending}
                                onClick={() => {
                                  startAction();
                                  withdraw.mutate(invitation, {
                                    onSuccess: () =>
                                      setNotice(
                                        `The invitation to ${invitation.email} is withdrawn: its link no longer works.`,
                                      ),
                                  });
                                }}
                              >
                                Withdraw
                              </button>
                            </td>
                          ) : null}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </>
          )
        }
      </QueryState>
    </section>
  );
}
