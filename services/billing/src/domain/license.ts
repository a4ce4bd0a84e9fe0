import type { Cents } from '@svc/money';

/** Billing's copy of a license (what licensing's events said last). */
export interface LicenseProjection {
  id: string;
  boxId: string;
  licenseePlatformId: string;
  licenseePlatformName: string;
  boxOwnerPlatformId: string;
  /** The exact decimal form of the rate, e.g. '0.15'. */
  royaltyRate: string;
  currency: string;
  /** The monthly fee in integer cents (0: the license earns through royalties only). */
  monthlyFeeCents: Cents;
  status: 'pending' | 'active' | 'expired' | 'revoked' | 'cancelled';
  validFrom: Date;
  expiresAt: Date;
  endedAt: Date | null;
  lastEventAt: Date;
  /** The license's entity version at licensing (ADR 0010): a lower one never overwrites a higher one. */
  version: number;
}
