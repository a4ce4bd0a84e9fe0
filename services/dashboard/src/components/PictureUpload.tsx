import { useId, useRef, type ChangeEvent } from 'react';
import { PICTURE_TYPES, useUploadPicture } from '../api/uploads';

interface Props {
  label: string;
  /** Called with the URL the uploaded picture is served at; the caller sends it to the API as any URL. */
  onUploaded: (url: string) => void;
}

/**
 * A labelled file input for a reference picture: the file goes to the dashboard's upload endpoint
 * as soon as it is chosen, and the answered URL is handed on. The API's message (wrong type, too
 * large) shows next to it and is announced.
 */
export function PictureUpload({ label, onUploaded }: Props) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const upload = useUploadPicture();
  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.currentTarget.files?.[0];
    if (file === undefined) return;
    upload.mutate(file, {
      onSuccess: (picture) => {
        onUploaded(picture.url);
        if (input.current !== null) input.current.value = '';
      },
    });
  };
  const error = upload.error === null ? undefined : (upload.error.fields.file ?? upload.error.message);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        ref={input}
        id={id}
        type="file"
        accept={PICTURE_TYPES}
        onChange={choose}
        disabled={upload.isPending}
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={`${id}-hint${error === undefined ? '' : ` ${id}-error`}`}
      />
      <p className="hint" id={`${id}-hint`}>
        A PNG, JPEG or WebP file of at most 5 MiB.
      </p>
      <p role="status" className="hint">
        {upload.isPending ? 'Uploading…' : upload.isSuccess ? 'Uploaded.' : ''}
      </p>
      {error === undefined ? null : (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
