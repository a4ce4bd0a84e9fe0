import { ByteArena, GrowableUint32, snapshotReader, type StringTable } from '@svc/name-matching';
import type { IndexedIdentity } from './identity';

/** The records' flat arrays, as a snapshot stores them. */
export type IdentityRecordParts = Record<string, Uint32Array | Buffer>;

type Row = [
  claimId: string,
  ownerPlatformId: string,
  name: string,
  variations: string[],
  entityType: IndexedIdentity['entityType'],
  verificationTier: IndexedIdentity['verificationTier'],
  verifiedAt: number,
  box:
    | [
        boxId: string,
        policy: string,
        enforcement: string,
        config: Record<string, unknown>,
        royalty: number,
        at: number,
      ]
    | null,
];

function encode(identity: IndexedIdentity): string {
  const box = identity.box;
  const row: Row = [
    identity.claimId,
    identity.ownerPlatformId,
    identity.name,
    identity.variations,
    identity.entityType,
    identity.verificationTier,
    identity.verifiedAt.getTime(),
    box === null
      ? null
      : [box.boxId, box.policy, box.enforcement, box.policyConfig, box.royaltyRate, box.boxedAt.getTime()],
  ];
  return JSON.stringify(row);
}

function decode(text: string): IndexedIdentity {
  const [claimId, ownerPlatformId, name, variations, entityType, verificationTier, verifiedAt, box] =
    JSON.parse(text) as Row;
  return {
    claimId,
    ownerPlatformId,
    name,
    variations,
    entityType,
    verificationTier,
    verifiedAt: new Date(verifiedAt),
    box:
      box === null
        ? null
        : {
            boxId: box[0],
            policy: box[1] as NonNullable<IndexedIdentity['box']>['policy'],
            enforcement: box[2] as NonNullable<IndexedIdentity['box']>['enforcement'],
            policyConfig: box[3],
            royaltyRate: box[4],
            boxedAt: new Date(box[5]),
          },
  };
}

/**
 * The identities of the catalogue, each a short JSON row in one Buffer (off the heap), by claim id
 * and by box id. A replaced identity's old row stays as garbage until the next rebuild; a box id
 * that moved on is recognised by reading the row back.
 */
export class IdentityRecords {
  private readonly claims: StringTable;
  private readonly boxes: StringTable;
  private readonly arena: ByteArena;
  private readonly offsets: GrowableUint32;
  /** Row length in bytes; 0 when the identity is absent. */
  private readonly lengths: GrowableUint32;
  /** Claim slot of each box id's slot. */
  private readonly boxClaims: GrowableUint32;
  private live = 0;

  constructor(parts?: IdentityRecordParts) {
    const { u32, buf, table } = snapshotReader(parts);
    this.claims = table('claims');
    this.boxes = table('boxes');
    this.arena = new ByteArena(64 * 1024, buf('rows'));
    this.offsets = new GrowableUint32(1024, u32('row.offsets'));
    this.lengths = new GrowableUint32(1024, u32('row.lengths'));
    this.boxClaims = new GrowableUint32(1024, u32('box.claims'));
    for (let slot = 0; slot < this.lengths.length; slot++) if (this.lengths.get(slot) > 0) this.live++;
  }

  get size(): number {
    return this.live;
  }

  put(identity: IndexedIdentity): void {
    const slot = this.claims.intern(identity.claimId);
    while (this.offsets.length <= slot) {
      this.offsets.push(0);
      this.lengths.push(0);
    }
    if (this.lengths.get(slot) === 0) this.live++;
    const { offset, bytes } = this.arena.append(encode(identity));
    this.offsets.set(slot, offset);
    this.lengths.set(slot, bytes);
    if (identity.box) {
      const boxSlot = this.boxes.intern(identity.box.boxId);
      while (this.boxClaims.length <= boxSlot) this.boxClaims.push(0);
      this.boxClaims.set(boxSlot, slot);
    }
  }

  remove(claimId: string): void {
    const slot = this.claims.get(claimId);
    if (slot < 0 || this.lengths.get(slot) === 0) return;
    this.lengths.set(slot, 0);
    this.live--;
  }

  get(claimId: string): IndexedIdentity | undefined {
    const slot = this.claims.get(claimId);
    return slot < 0 ? undefined : this.read(slot);
  }

  byBoxId(boxId: string): IndexedIdentity | undefined {
    const boxSlot = this.boxes.get(boxId);
    if (boxSlot < 0) return undefined;
    const identity = this.read(this.boxClaims.get(boxSlot));
    return identity?.box?.boxId === boxId ? identity : undefined;
  }

  parts(): IdentityRecordParts {
    const out: IdentityRecordParts = {};
    for (const [prefix, t] of [
      ['claims', this.claims],
      ['boxes', this.boxes],
    ] as const) {
      out[`${prefix}.arena`] = t.arena.used();
      out[`${prefix}.offsets`] = t.offsets.used();
      out[`${prefix}.lengths`] = t.lengths.used();
      out[`${prefix}.hashes`] = t.hashes.used();
      out[`${prefix}.slots`] = t.slotsCopy();
    }
    out['rows'] = this.arena.used();
    // Changed in place by put and remove: copied, so a snapshot being written stays consistent.
    out['row.offsets'] = this.offsets.used().slice();
    out['row.lengths'] = this.lengths.used().slice();
    out['box.claims'] = this.boxClaims.used().slice();
    return out;
  }

  private read(slot: number): IndexedIdentity | undefined {
    const bytes = this.lengths.get(slot);
    return bytes === 0 ? undefined : decode(this.arena.read(this.offsets.get(slot), bytes));
  }
}
