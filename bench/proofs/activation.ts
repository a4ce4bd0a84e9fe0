// Goal 1 of issue #31: issuing a credential adds at most 2 ms to a license activation's p50.
//
// Licensing's own activation use case (requestLicense on a box whose tier is approved at once:
// request, license, credential and events in one transaction) runs on a fresh PostgreSQL database
// with licensing's migrations and repositories. The credential step cannot be switched off through
// the use case's seams: grantLicense calls issueCredential itself, and a credential store that
// stored nothing would still leave the Ed25519 signature in. So each activation times its own
// issuance step from inside: the credential store is wrapped, and the span from its
// statusEntryOf call (issueCredential's first step) to the end of its insert (its last) is the
// issuance, status-list entry + signature + insert, in the activation's transaction. "Added" is
// that span's p50; "activation without it" is each activation's time less its span, the same-run
// baseline. The signature alone (signCredential, no database) is timed beside.
import { generateKeyPairSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SandboxClockRepository, systemClock } from '@svc/clock';
import { appendToOutbox, currentEntityVersion } from '@svc/messaging';
import type { Queryable } from '@svc/storage';
import { createDatabase, runMigrations } from '@svc/storage';
import { freshPostgresDatabase } from '@svc/test-kit';
import {
  licensing,
  newIdOfLicensing,
  type CredentialStore,
  type License,
  type SigningKey,
} from './workspace';

export const ISSUER = 'https://licensing.bench.local';

export interface ActivationFigures {
  activations: number;
  activationP50: number;
  activationP99: number;
  issuanceP50: number;
  issuanceP99: number;
  withoutP50: number;
  /** activation p50 less the p50 of activation-minus-issuance: the other reading of "added". */
  addedP50: number;
  signatureP50: number;
  key: SigningKey;
  /** One activated license, to sign more credentials from. */
  license: License;
  /** The credential of that license as licensing stored it. */
  credential: string;
}

const median = (sorted: number[], p = 50): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

/** A fresh Ed25519 key as licensing reads it from its setting (a private JWK). */
export async function benchSigningKey(): Promise<SigningKey> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const { signingKeyFrom } = licensing();
  return signingKeyFrom(JSON.stringify(privateKey.export({ format: 'jwk' })));
}

export async function measureActivation(activations: number): Promise<ActivationFigures> {
  const {
    licensingMigrations,
    requestLicense,
    signCredential,
    BoxProjectionRepository,
    LicenseRequestRepository,
    LicenseRepository,
    CredentialRepository,
  } = licensing();

  const database = await freshPostgresDatabase('bench_activation');
  const db = await createDatabase({ url: database.url });
  try {
    await runMigrations(db, licensingMigrations());
    const key = await benchSigningKey();
    const boxes = new BoxProjectionRepository();
    const boxId = 'box_bench';
    await db.transaction((tx) =>
      boxes.upsert(tx, {
        boxId,
        claimId: 'clm_bench',
        ownerPlatformId: 'plat_owner',
        identityName: 'Bench Identity',
        policy: 'LICENSE',
        policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
        royaltyRate: 0,
        updatedAt: new Date(),
        version: 1,
        deletedAt: null,
      }),
    );

    // The credential store, wrapped: issueCredential calls statusEntryOf first and insert last.
    const real = new CredentialRepository();
    let issuanceStart = 0;
    const spans: number[] = [];
    const credentials: CredentialStore = {
      statusEntryOf: (tx: Queryable, licenseId: string) => {
        issuanceStart = performance.now();
        return real.statusEntryOf(tx, licenseId);
      },
      insert: async (tx, credential) => {
        await real.insert(tx, credential);
        spans.push(performance.now() - issuanceStart);
      },
      newest: (q, licenseId) => real.newest(q, licenseId),
      invalidIndexes: (q, listId, now) => real.invalidIndexes(q, listId, now),
    };
    const refuse = () => Promise.reject(new Error('the bench asks no other service'));
    const ctx = {
      db,
      boxes,
      registry: { boxSnapshot: refuse, close: () => Promise.resolve() },
      requests: new LicenseRequestRepository(),
      licenses: new LicenseRepository(),
      billing: { close: () => Promise.resolve() },
      clocks: new SandboxClockRepository(),
      clock: systemClock,
      outbox: appendToOutbox,
      eventsCommitted: () => undefined,
      entityVersion: currentEntityVersion,
      newId: newIdOfLicensing(),
      credentials,
      signer: { issuer: ISSUER, key: () => key },
    };

    const activate = async (i: number) => {
      const caller = {
        platformId: `plat_${i}`,
        platformName: `Platform ${i}`,
        environment: 'sandbox' as const,
      };
      const started = performance.now();
      const result = await requestLicense(ctx, caller, { boxId, tier: 'personal', useCase: 'bench' });
      const took = performance.now() - started;
      if (result.license?.status !== 'active') throw new Error(`activation ${i} left no active license`);
      return { took, license: result.license };
    };
    // Warm-up: prepared statements, JIT, the key's first use.
    for (let i = 0; i < 30; i += 1) await activate(-1 - i);
    spans.length = 0;

    const totals: number[] = [];
    let license: License | undefined;
    for (let i = 0; i < activations; i += 1) {
      const { took, license: active } = await activate(i);
      totals.push(took);
      license = active;
    }
    if (license === undefined || spans.length !== activations) {
      throw new Error(`timed ${spans.length} issuances for ${activations} activations`);
    }
    const without = totals.map((t, i) => t - (spans[i] as number));
    const stored = await real.newest(db, license.id);
    if (stored === null) throw new Error('the last activation stored no credential');

    const signatures: number[] = [];
    const entry = { listId: 1, idx: 0 };
    for (let i = 0; i < activations; i += 1) {
      const started = performance.now();
      await signCredential(key, ISSUER, license, entry, new Date());
      signatures.push(performance.now() - started);
    }

    const t = sorted(totals);
    const s = sorted(spans);
    const w = sorted(without);
    return {
      activations,
      activationP50: median(t),
      activationP99: median(t, 99),
      issuanceP50: median(s),
      issuanceP99: median(s, 99),
      withoutP50: median(w),
      addedP50: median(t) - median(w),
      signatureP50: median(sorted(signatures)),
      key,
      license,
      credential: stored.credential,
    };
  } finally {
    await db.close();
    await database.drop();
  }
}
