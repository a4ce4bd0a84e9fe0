import type { FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import type { Claim } from '../../api/registry';
import { useAddClaimImage } from '../../api/uploads';
import { Field, FormError } from '../../components/Field';
import { PictureUpload } from '../../components/PictureUpload';

type FaceStatus = Claim['referenceImages'][number]['face']['status'];

/** What each face status tells the creator (docs/spec/contracts.md §15). */
const FACE_STATUS: Record<FaceStatus, { label: string; tone: 'ok' | 'warn' | '' }> = {
  pending: { label: 'Face: being examined', tone: '' },
  enrolled: { label: 'Face enrolled', tone: 'ok' },
  no_face: { label: 'No face found', tone: 'warn' },
  several_faces: { label: 'Several faces', tone: 'warn' },
  failed: { label: 'Could not be read', tone: 'warn' },
};

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
  const enrolled = claim.referenceImages.filter((image) => image.face.status === 'enrolled').length;
  const unusable = claim.referenceImages.filter((image) =>
    ['no_face', 'several_faces', 'failed'].includes(image.face.status),
  ).length;
  return (
    <section aria-labelledby="pictures-title">
      <h2 id="pictures-title">Reference pictures</h2>
      <p>
        Each picture showing exactly one face protects that face: an avatar with your face under another name
        is found. {enrolled} of {claim.referenceImages.length} enrolled.
      </p>
      {unusable > 0 && enrolled === 0 ? (
        <p role="status" className="notice warn">
          No face could be enrolled yet. Add a clear picture that shows your face, and only yours, so that
          avatars with your face are recognised.
        </p>
      ) : null}
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
              <span className={`badge ${FACE_STATUS[image.face.status].tone}`}>
                {FACE_STATUS[image.face.status].label}
              </span>
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
