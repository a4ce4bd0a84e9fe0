import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';

// The one ordering rule of every projection (ADR 0010, ADR 0038): a state is placed by the
// owner's entity version first, then by its instant (the only order among events written before
// versions existed, all version 0), then by an optional rank where a table keeps one. A state
// applies when its position is at least the stored one: a newer one replaces it, the same event
// restated leaves it as it is, an older one changes nothing.

/** Where a state stands in its entity's history. */
export interface Position {
  /** The owner's entity version (0: an event without one). */
  version: number;
  /** The instant of the state: orders states of one version. Absent where a table keeps none. */
  at?: Date;
  /** A last tie-break among states of one version and instant (e.g. a final status over an open one). */
  rank?: number;
}

const instant = (position: Position): number => position.at?.getTime() ?? 0;

/** Negative when `a` is older than `b`, 0 at the same position, positive when newer. */
export function comparePositions(a: Position, b: Position): number {
  return a.version - b.version || instant(a) - instant(b) || (a.rank ?? 0) - (b.rank ?? 0);
}

/** True when `incoming` applies over `stored` (at least as new); always when nothing is stored. */
export function appliesOver(incoming: Position, stored: Position | null | undefined): boolean {
  return stored === null || stored === undefined || comparePositions(incoming, stored) >= 0;
}

/** The position of an event: its entity version (0 without one) and the instant it occurred. */
export function positionOf(
  envelope: Pick<EventEnvelope, 'entity' | 'occurredAt'>,
): Required<Omit<Position, 'rank'>> {
  return { version: entityVersionOf(envelope), at: new Date(envelope.occurredAt) };
}
