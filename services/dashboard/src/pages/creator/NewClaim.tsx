import { useRef, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { fieldError, formError } from '../../api/form-errors';
import { useCreateClaim, type NewClaim as NewClaimBody } from '../../api/registry';
import { Field, FormError, SelectField } from '../../components/Field';
import { PictureUpload } from '../../components/PictureUpload';

const FIELDS = ['name', 'entityType', 'variations', 'referenceImages'];

function lines(value: FormDataEntryValue | null): string[] {
  return String(value ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export function NewClaim() {
  const create = useCreateClaim();
  const navigate = useNavigate();
  const images = useRef<HTMLTextAreaElement>(null);
  // An uploaded picture joins the list as its URL: the claim is created with URLs only.
  const addUploaded = (url: string) => {
    const list = images.current;
    if (list === null) return;
    list.value = list.value.trim() === '' ? url : `${list.value.trimEnd()}\n${url}`;
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const body: NewClaimBody = {
      name: String(form.get('name') ?? ''),
      entityType: String(form.get('entityType')) as NewClaimBody['entityType'],
      variations: lines(form.get('variations')),
      referenceImages: lines(form.get('images')).map((url, index) => ({ url, isPrimary: index === 0 })),
    };
    create.mutate(body, { onSuccess: (claim) => void navigate(`/claims/${claim.id}`) });
  };
  const imageError =
    fieldError(create.error, 'referenceImages') ??
    Object.entries((create.error as { fields?: Record<string, string> } | null)?.fields ?? {}).find(
      ([field]) => field.startsWith('referenceImages.'),
    )?.[1];
  const variationError = Object.entries(
    (create.error as { fields?: Record<string, string> } | null)?.fields ?? {},
  ).find(([field]) => field === 'variations' || field.startsWith('variations.'))?.[1];
  return (
    <section aria-labelledby="new-claim-title">
      <h1 id="new-claim-title">Claim an identity</h1>
      <form onSubmit={submit} noValidate>
        <Field label="Name" name="name" required error={fieldError(create.error, 'name')} />
        <SelectField
          label="Entity type"
          name="entityType"
          defaultValue="INDIVIDUAL"
          error={fieldError(create.error, 'entityType')}
        >
          <option value="INDIVIDUAL">A person</option>
          <option value="ESTATE">An estate</option>
          <option value="CORPORATION">A company</option>
          <option value="AGENCY">An agency</option>
        </SelectField>
        <div className="field">
          <label htmlFor="variations">Variations (one per line)</label>
          <textarea
            id="variations"
            name="variations"
            rows={3}
            aria-describedby={variationError === undefined ? undefined : 'variations-error'}
          />
          {variationError === undefined ? null : (
            <p className="field-error" id="variations-error" role="alert">
              {variationError}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor="images">Reference pictures (one URL per line; the first is the primary)</label>
          <textarea
            ref={images}
            id="images"
            name="images"
            rows={3}
            aria-invalid={imageError === undefined ? undefined : true}
            aria-describedby={imageError === undefined ? 'images-hint' : 'images-hint images-error'}
          />
          <p className="hint" id="images-hint">
            At least one http(s) address of a picture of this identity, or upload a file below: its address is
            added here.
          </p>
          {imageError === undefined ? null : (
            <p className="field-error" id="images-error" role="alert">
              {imageError}
            </p>
          )}
        </div>
        <PictureUpload label="Upload a reference picture" onUploaded={addUploaded} />
        <FormError
          error={formError(
            create.error,
            FIELDS.concat(Object.keys((create.error as { fields?: object } | null)?.fields ?? {})),
          )}
        />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Claiming…' : 'Claim'}
        </button>
      </form>
    </section>
  );
}
