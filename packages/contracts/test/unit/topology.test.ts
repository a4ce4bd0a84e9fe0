import { allEvents, EVENT_QUEUES, patternsOf, topologyMismatch } from '../../src';

// The system's event topology: what every service declares on RabbitMQ before it publishes.
describe('the event topology', () => {
  it('when a subscription is its queue entry, whatever the order of its patterns, then it matches', () => {
    expect(
      topologyMismatch({ queue: 'detection.identities', patterns: ['registry.box.*', 'registry.claim.*'] }),
    ).toBeUndefined();
  });

  it('when a subscription names an unknown queue or other patterns, then the mismatch says which', () => {
    expect(topologyMismatch({ queue: 'detection.everything', patterns: ['#'] })).toMatch(
      /detection.everything is not in the system's event topology/,
    );
    expect(topologyMismatch({ queue: 'licensing.boxes', patterns: ['registry.box.created'] })).toMatch(
      /binds registry.box.created; the event topology says registry.box.\*/,
    );
  });

  it('when the topology is read, then every queue is named once and every pattern routes at least one event of the contracts', () => {
    const queues = EVENT_QUEUES.map((entry) => entry.queue);
    expect(new Set(queues).size).toBe(queues.length);
    const types = allEvents.map((event) => event.type);
    const routes = (pattern: string, type: string) =>
      new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*/g, '[^.]+').replace(/#/g, '.*')}$`).test(type);
    for (const { queue, patterns } of EVENT_QUEUES)
      for (const pattern of patterns)
        expect([queue, pattern, types.some((type) => routes(pattern, type))]).toEqual([queue, pattern, true]);
  });

  it("when a consumer asks for its queue's patterns, then it gets the topology's own, a copy it may keep, and an unknown queue is refused", () => {
    const patterns = patternsOf('billing.license-projection');
    expect(patterns).toEqual([
      'licensing.license.activated',
      'licensing.license.renewed',
      'licensing.license.cancelled',
      'licensing.license.expired',
      'licensing.license.revoked',
    ]);
    expect(topologyMismatch({ queue: 'billing.license-projection', patterns })).toBeUndefined();
    patterns.push('licensing.request.*');
    expect(patternsOf('billing.license-projection')).toHaveLength(5);
    expect(() => patternsOf('billing.everything')).toThrow(
      /billing.everything is not in the system's event topology/,
    );
  });
});
