import { topicMatches } from '@svc/messaging';

describe('topicMatches', () => {
  it.each([
    ['registry.box.created', 'registry.box.created', true],
    ['registry.box.*', 'registry.box.created', true],
    ['registry.box.*', 'registry.box.created.late', false],
    ['registry.*.created', 'registry.claim.created', true],
    ['*.box.created', 'registry.box.created', true],
    ['registry.#', 'registry.box.created', true],
    ['registry.#', 'registry', true],
    ['#', 'anything.at.all', true],
    ['#.created', 'registry.box.created', true],
    ['#.created', 'registry.box.deleted', false],
    ['registry.#.created', 'registry.created', true],
    ['registry.#.created', 'registry.a.b.c.created', true],
    ['registry.*', 'registry', false],
    ['licensing.license.*', 'registry.license.created', false],
    ['#.#.x', 'a.b.x', true],
  ])('when the pattern is %s and the key %s, then it matches: %s', (pattern, key, expected) => {
    expect(topicMatches(pattern, key)).toBe(expected);
  });
});
