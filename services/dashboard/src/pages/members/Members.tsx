import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { fieldError, formError } from '../../api/form-errors';
import { formatDate, formatDateTime } from '../../api/format';
import {
  MEMBER_ROLES,
  useChangeMemberRole,
  useInviteMember,
  useMemberRole,
  useMembers,
  useRemoveMember,
  useWithdrawInvitation,
  type Invitation,
  type Member,
  type MemberRole,
} from '../../api/members';
import { Field, FormError, SelectField } from '../../components/Field';
import { QueryState } from '../../components/Status';
import { ConfirmDialog } from '../../components/ConfirmDialog';

const ROLES = Object.keys(MEMBER_ROLES) as MemberRole[];

/** Asks before a member is removed, or before one leaves: the account is deleted and its sessions end. */
function ConfirmRemove({
  member,
  pending,
  onConfirm,
  onCancel,
}: {
  member: Member;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      titleId="remove-title"
      title={member.you ? 'Leave and delete your account?' : `Remove ${member.name}?`}
      confirm={member.you ? 'Leave' : 'Remove member'}
      confirming="Removing…"
      pending={pending}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        {member.you
          ? 'Your account is deleted and you are signed out at once. An owner can invite you again.'
          : `${member.name} (${member.email}) can no longer sign in: the account is deleted and its sessions end at once. You can invite the address again.`}
      </p>
    </ConfirmDialog>
  );
}

/** An owner's control for one member's role: pick, then save. */
function RoleChange({
  member,
  pending,
  onChange,
}: {
  member: Member;
  pending: boolean;
  onChange: (role: MemberRole) => void;
}) {
  const [role, setRole] = useState<MemberRole>(member.role);
  return (
    <form
      className="inline-form role-change"
      onSubmit={(event) => {
        event.preventDefault();
        onChange(role);
      }}
    >
      <select
        aria-label={`Role of ${member.name}`}
        value={role}
        onChange={(event) => setRole(event.target.value as MemberRole)}
      >
        {ROLES.map((value) => (
          <option key={value} value={value}>
            {MEMBER_ROLES[value].label}
          </option>
        ))}
      </select>
      <button
        type="submit"
        className="secondary"
        aria-label={`Change the role of ${member.name}`}
        disabled={pending || role === member.role}
      >
        Change
      </button>
    </form>
  );
}

function InviteForm({ onInvited }: { onInvited: (invitation: Invitation) => void }) {
  const invite = useInviteMember();
  const [role, setRole] = useState<MemberRole>('developer');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const email = String(new FormData(form).get('email') ?? '').trim();
    invite.mutate(
      { email, role },
      {
        onSuccess: (invitation) => {
          onInvited(invitation);
          form.reset();
        },
      },
    );
  };
  return (
    <>
      <h2 id="invite-title">Invite a member</h2>
      <form onSubmit={submit} noValidate aria-labelledby="invite-title">
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="off"
          required
          error={fieldError(invite.error, 'email')}
        />
        <SelectField
          label="Role"
          name="role"
          value={role}
          onChange={(event) => setRole(event.target.value as MemberRole)}
          hint={MEMBER_ROLES[role].explanation}
          error={fieldError(invite.error, 'role')}
        >
          {ROLES.map((value) => (
            <option key={value} value={value}>
              {MEMBER_ROLES[value].label}
            </option>
          ))}
        </SelectField>
        <FormError error={formError(invite.error, ['email', 'role'])} />
        <button type="submit" disabled={invite.isPending}>
          {invite.isPending ? 'Inviting…' : 'Invite'}
        </button>
      </form>
    </>
  );
}

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
