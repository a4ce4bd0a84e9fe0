import { allEvents, EVENT_QUEUES, topologyMismatch } from '../../src';

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
});
