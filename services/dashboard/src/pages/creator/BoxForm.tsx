import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/http';
import { fieldError } from '../../api/form-errors';
import { useCreateBox, useUpdateBox, type Box, type BoxChange, type NewBox } from '../../api/registry';
import { Field, FormError, SelectField } from '../../components/Field';

type Policy = NewBox['policy'];
type Enforcement = NonNullable<NewBox['enforcement']>;
type Config = Record<string, unknown>;

const POLICIES: { value: Policy; label: string }[] = [
  { value: 'MONETIZE', label: 'Monetize: allowed, royalties on revenue' },
  { value: 'LICENSE', label: 'License: platforms need a license' },
  { value: 'TEAM', label: 'Team: only listed accounts and platforms' },
  { value: 'BLOCK_COMMERCIAL', label: 'Block commercial use' },
  { value: 'BLOCK_ALL', label: 'Block all' },
  { value: 'OPEN', label: 'Open: monitor only' },
];
const TIERS = ['personal', 'creator', 'commercial'] as const;
const REVENUE_TYPES = ['subscription', 'per_message', 'tips', 'ads'] as const;
const ALLOWED_USES = ['personal', 'educational', 'parody'] as const;

function lines(value: FormDataEntryValue | null): string[] {
  return String(value ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function numberOf(value: FormDataEntryValue | null): number | undefined {
  const text = String(value ?? '').trim();
  return text === '' ? undefined : Number(text);
}

/** The policy configuration the form holds, in the shape the API takes for `policy`. */
function configOf(policy: Policy, form: FormData): Config {
  switch (policy) {
    case 'MONETIZE': {
      const royaltyRate = numberOf(form.get('royaltyRate'));
      return {
        ...(royaltyRate === undefined ? {} : { royaltyRate }),
        revenueTypes: REVENUE_TYPES.filter((type) => form.get(`revenue-${type}`) === 'on'),
      };
    }
    case 'LICENSE': {
      const licenseTypes: Config = {};
      for (const tier of TIERS) {
        if (form.get(`offer-${tier}`) !== 'on') continue;
        const price = numberOf(form.get(`price-${tier}`));
        licenseTypes[tier] = {
          ...(price === undefined ? {} : { price }),
          autoApprove: form.get(`auto-${tier}`) === 'on',
        };
      }
      return { licenseTypes };
    }
    case 'TEAM':
      return {
        authorizedAccounts: lines(form.get('authorizedAccounts')),
        platformWhitelist: lines(form.get('platformWhitelist')),
      };
    case 'BLOCK_COMMERCIAL':
      return { allowedUses: ALLOWED_USES.filter((use) => form.get(`use-${use}`) === 'on') };
    default:
      return {};
  }
}

/** The first message the API gave about a field under `prefix` (e.g. `policyConfig.licenseTypes`). */
function errorUnder(error: unknown, prefix: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return Object.entries(error.fields).find(
    ([field]) => field === prefix || field.startsWith(`${prefix}.`),
  )?.[1];
}

/** Creates a box on a verified claim, or changes one: the form follows the chosen policy. */
export function BoxForm({ claimId, box }: { claimId?: string; box?: Box }) {
  const [policy, setPolicy] = useState<Policy>(box?.policy ?? 'MONETIZE');
  const create = useCreateBox();
  const update = useUpdateBox(box?.id ?? '');
  const navigate = useNavigate();
  const mutation = box === undefined ? create : update;
  const config = (box?.policyConfig ?? {}) as Config;
  const licenseTypes = (config.licenseTypes ?? {}) as Record<
    string,
    { price?: number; autoApprove?: boolean } | undefined
  >;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const enforcement = String(form.get('enforcement')) as Enforcement;
    const policyConfig = configOf(policy, form);
    if (box === undefined) {
      create.mutate(
        // configOf builds the configuration of the chosen policy's shape (the body is a union on policy).
        { claimId: claimId ?? '', policy, enforcement, policyConfig } as NewBox,
        { onSuccess: (created) => void navigate(`/boxes/${created.id}`) },
      );
    } else {
      update.mutate({ policy, enforcement, policyConfig } as BoxChange);
    }
  };
  const e = mutation.error;
  const known =
    e instanceof ApiError
      ? Object.keys(e.fields).some(
          (f) => f === 'policy' || f === 'enforcement' || f.startsWith('policyConfig'),
        )
      : false;
  return (
    <form onSubmit={submit} noValidate aria-label={box === undefined ? 'New box' : 'Change the box'}>
      <SelectField
        label="Policy"
        name="policy"
        value={policy}
        onChange={(event) => setPolicy(event.target.value as Policy)}
        error={fieldError(e, 'policy')}
      >
        {POLICIES.map((p) => (
          <option key={p.value} value={p.value}>
            {p.label}
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Enforcement"
        name="enforcement"
        defaultValue={box?.enforcement ?? 'MODERATE'}
        error={fieldError(e, 'enforcement')}
      >
        <option value="STRICT">Strict: lowest match threshold, no parody exception</option>
        <option value="MODERATE">Moderate: standard grace period, parody review</option>
        <option value="RELAXED">Relaxed: longer grace period, highest threshold</option>
      </SelectField>
      {policy === 'MONETIZE' ? (
        <>
          <Field
            label="Royalty rate (0 to 1, e.g. 0.15 for 15 %)"
            name="royaltyRate"
            type="number"
            step="0.01"
            min="0"
            max="1"
            defaultValue={typeof config.royaltyRate === 'number' ? String(config.royaltyRate) : '0.15'}
            error={fieldError(e, 'policyConfig.royaltyRate')}
          />
          <fieldset>
            <legend>Revenue types</legend>
            {REVENUE_TYPES.map((type) => (
              <label key={type}>
                <input
                  type="checkbox"
                  name={`revenue-${type}`}
                  defaultChecked={(
                    (config.revenueTypes as string[] | undefined) ?? ['subscription']
                  ).includes(type)}
                />{' '}
                {type.replace('_', ' ')}
              </label>
            ))}
          </fieldset>
        </>
      ) : null}
      {policy === 'LICENSE'
        ? TIERS.map((tier) => (
            <fieldset key={tier}>
              <legend>{tier} license</legend>
              <label>
                <input
                  type="checkbox"
                  name={`offer-${tier}`}
                  defaultChecked={box === undefined || licenseTypes[tier] !== undefined}
                />{' '}
                Offer it
              </label>
              <Field
                label={`${tier} monthly price`}
                name={`price-${tier}`}
                type="number"
                min="0"
                step="1"
                defaultValue={String(
                  licenseTypes[tier]?.price ?? (tier === 'personal' ? 10 : tier === 'creator' ? 50 : 500),
                )}
                error={errorUnder(e, `policyConfig.licenseTypes.${tier}`)}
              />
              <label>
                <input
                  type="checkbox"
                  name={`auto-${tier}`}
                  defaultChecked={licenseTypes[tier]?.autoApprove ?? false}
                />{' '}
                Approve requests automatically
              </label>
            </fieldset>
          ))
        : null}
      {policy === 'TEAM' ? (
        <>
          <div className="field">
            <label htmlFor="authorizedAccounts">Authorized accounts (platform user ids, one per line)</label>
            <textarea
              id="authorizedAccounts"
              name="authorizedAccounts"
              rows={3}
              defaultValue={((config.authorizedAccounts as string[] | undefined) ?? []).join('\n')}
            />
          </div>
          <div className="field">
            <label htmlFor="platformWhitelist">Platform domains allowed (one per line)</label>
            <textarea
              id="platformWhitelist"
              name="platformWhitelist"
              rows={3}
              defaultValue={((config.platformWhitelist as string[] | undefined) ?? []).join('\n')}
            />
            {errorUnder(e, 'policyConfig.platformWhitelist') === undefined ? null : (
              <p className="field-error" role="alert">
                {errorUnder(e, 'policyConfig.platformWhitelist')}
              </p>
            )}
          </div>
        </>
      ) : null}
      {policy === 'BLOCK_COMMERCIAL' ? (
        <fieldset>
          <legend>Uses still allowed</legend>
          {ALLOWED_USES.map((use) => (
            <label key={use}>
              <input
                type="checkbox"
                name={`use-${use}`}
                defaultChecked={((config.allowedUses as string[] | undefined) ?? []).includes(use)}
              />{' '}
              {use}
            </label>
          ))}
        </fieldset>
      ) : null}
      <FormError error={known ? undefined : (e?.message ?? undefined)} />
      <button type="submit" disabled={mutation.isPending}>
        {mutation.isPending ? 'Saving…' : box === undefined ? 'Protect with this box' : 'Save changes'}
      </button>
      {box !== undefined && update.isSuccess ? <p role="status">Saved.</p> : null}
    </form>
  );
}
