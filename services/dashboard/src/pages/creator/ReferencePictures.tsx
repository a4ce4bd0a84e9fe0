import type { FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import type { Claim } from '../../api/registry';
import { useAddClaimImage } from '../../api/uploads';
import { Field, FormError } from '../../components/Field';
import { PictureUpload } from '../../components/PictureUpload';

/**
 * A claim's reference pictures, and more added by URL or by uploading a file. An uploaded file is
 * stored by the dashboard and its URL goes to POST /claims/{id}/images like any other (ADR 0024).
 */
export function ReferencePictures({ claim }: { claim: Claim }) {
  const add = useAddClaimImage(claim.id);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const url = String(new FormData(form).get('url') ?? '').trim();
    add.mutate(url, { onSuccess: () => form.reset() });
  };
  return (
    <section aria-labelledby="pictures-title">
      <h2 id="pictures-title">Reference pictures</h2>
      {claim.referenceImages.length === 0 ? (
        <p className="empty">No reference picture yet: add one by URL or upload a file.</p>
      ) : (
        <ul className="pictures">
          {claim.referenceImages.map((image, index) => (
            <li key={image.id}>
              <a href={image.url} target="_blank" rel="noreferrer noopener">
                <img
                  src={image.url}
                  alt={`Reference picture ${index + 1}${image.isPrimary ? ' (primary)' : ''}`}
                  width={96}
                  height={96}
                  loading="lazy"
                />
              </a>
              {image.isPrimary ? <span className="badge ok">primary</span> : null}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} noValidate>
        <Field label="Add a picture by URL" name="url" type="url" error={fieldError(add.error, 'url')} />
        <FormError error={formError(add.error, ['url'])} />
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add picture'}
        </button>
      </form>
      <PictureUpload label="Or upload a picture" onUploaded={(url) => add.mutate(url)} />
    </section>
  );
}
