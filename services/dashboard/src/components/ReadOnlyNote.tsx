/**
 * What a read-only member sees in place of a form (issue #32, "Platform members"): the gateway
 * would refuse the change with 403, so the form is not offered.
 */
export function ReadOnlyNote() {
  return <p className="notice warn">Your role (read-only) cannot change this.</p>;
}
