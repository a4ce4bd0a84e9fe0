import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import {
  MEMBER_ROLES,
  useInviteMember,
  type Invitation,
  type Member,
  type MemberRole,
} from '../../api/members';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field, FormError, SelectField } from '../../components/Field';

// The owner's controls of the Members page: invite, change a role, confirm a removal.

const ROLES = Object.keys(MEMBER_ROLES) as MemberRole[];

/** Asks before a member is removed, or before one leaves: the account is deleted and its sessions end. */
export function ConfirmRemove({
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
export function RoleChange({
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

export function InviteForm({ onInvited }: { onInvited: (invitation: Invitation) => void }) {
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
