import { appliesOver, comparePositions, positionOf } from '../../src';

const t = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

describe('the ordering rule: the version first, then the instant, then the rank', () => {
  it('when nothing is stored, then any state applies', () => {
    expect(appliesOver({ version: 0, at: t(0) }, null)).toBe(true);
    expect(appliesOver({ version: 0 }, undefined)).toBe(true);
  });

  it('when the version is newer, then it applies even with an earlier instant', () => {
    expect(appliesOver({ version: 3, at: t(1) }, { version: 2, at: t(9) })).toBe(true);
  });

  it('when the version is older, then it is ignored even with a later instant', () => {
    expect(appliesOver({ version: 2, at: t(9) }, { version: 3, at: t(1) })).toBe(false);
  });

  it('when the version is the same, then a later instant applies and an earlier one is ignored', () => {
    expect(appliesOver({ version: 2, at: t(5) }, { version: 2, at: t(4) })).toBe(true);
    expect(appliesOver({ version: 2, at: t(4) }, { version: 2, at: t(5) })).toBe(false);
  });

  it('when events have no version (0), then the instant alone orders them', () => {
    expect(appliesOver({ version: 0, at: t(5) }, { version: 0, at: t(4) })).toBe(true);
    expect(appliesOver({ version: 0, at: t(4) }, { version: 0, at: t(5) })).toBe(false);
    expect(appliesOver({ version: 1, at: t(0) }, { version: 0, at: t(9) })).toBe(true);
  });

  it('when version and instant are equal, then the rank decides, and the same position applies again', () => {
    expect(appliesOver({ version: 0, at: t(4), rank: 1 }, { version: 0, at: t(4), rank: 0 })).toBe(true);
    expect(appliesOver({ version: 0, at: t(4), rank: 0 }, { version: 0, at: t(4), rank: 1 })).toBe(false);
    // The same event restated: written again, the same state.
    expect(comparePositions({ version: 2, at: t(4) }, { version: 2, at: t(4) })).toBe(0);
    expect(appliesOver({ version: 2, at: t(4) }, { version: 2, at: t(4) })).toBe(true);
  });

  it('when a table keeps no instant, then the version alone orders', () => {
    expect(appliesOver({ version: 2 }, { version: 1 })).toBe(true);
    expect(appliesOver({ version: 1 }, { version: 2 })).toBe(false);
  });

  it("when an event is read, then its position is its entity's version and its instant", () => {
    const at = t(7).toISOString();
    expect(positionOf({ occurredAt: at, entity: { id: 'box_1', version: 4 } })).toEqual({
      version: 4,
      at: t(7),
    });
    expect(positionOf({ occurredAt: at })).toEqual({ version: 0, at: t(7) });
  });
});
