import type { ReactNode } from 'react';

/** A `<dialog>`'s ref that opens it as a modal: focus moves into it, the page behind is inert, Escape cancels. */
export function openAsModal(element: HTMLDialogElement | null): void {
  if (element !== null && !element.open) element.showModal();
}

/** Asks before something that cannot be undone: a modal with what will happen, the act and a way out. */
export function ConfirmDialog({
  titleId,
  title,
  children,
  confirm,
  confirming,
  cancel = 'Cancel',
  pending,
  onConfirm,
  onCancel,
}: {
  titleId: string;
  title: ReactNode;
  /** What will happen (and any error of the act). */
  children: ReactNode;
  /** The act's button, e.g. "Revoke key"; `confirming` while it runs, e.g. "Revoking…". */
  confirm: string;
  confirming: string;
  cancel?: string;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <dialog ref={openAsModal} aria-labelledby={titleId} onCancel={onCancel}>
      <h2 id={titleId}>{title}</h2>
      {children}
      <div className="actions">
        <button type="button" className="danger" disabled={pending} onClick={onConfirm}>
          {pending ? confirming : confirm}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {cancel}
        </button>
      </div>
    </dialog>
  );
}
