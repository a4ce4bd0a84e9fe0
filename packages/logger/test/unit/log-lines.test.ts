import {
  createLogger,
  currentRequestContext,
  currentRequestId,
  withRequestContext,
  type Logger,
} from '../../src';

/** A logger writing into an array: each entry is one parsed JSON line. */
function capture(options: Parameters<typeof createLogger>[1] = { level: 'info' }): {
  logger: Logger;
  lines: Record<string, unknown>[];
} {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('registry', options, {
    write(chunk: string) {
      for (const line of chunk.split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines };
}

describe('log lines', () => {
  it('when a line is logged, then it is one JSON object with level, ISO time, service and message', () => {
    const { logger, lines } = capture();
    logger.info({ claimId: 'claim_1' }, 'Claim created');

    expect(lines).toEqual([
      {
        level: 30,
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        service: 'registry',
        claimId: 'claim_1',
        msg: 'Claim created',
      },
    ]);
  });

  it('when logging inside a request context, then each line carries its requestId, also after an await', async () => {
    const { logger, lines } = capture();

    await withRequestContext({ requestId: 'req-123', platformId: 'plat_x' }, async () => {
      logger.info('before');
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.info('after');
    });

    expect(lines.map((l) => [l.msg, l.requestId])).toEqual([
      ['before', 'req-123'],
      ['after', 'req-123'],
    ]);
  });

  it('when logging outside any request context, then the line has no requestId', () => {
    const { logger, lines } = capture();
    logger.info('startup');

    expect(lines[0]).not.toHaveProperty('requestId');
  });

  it('when two requests run at once, then each line carries its own request id', async () => {
    const { logger, lines } = capture();
    const handle = (requestId: string, delay: number) =>
      withRequestContext({ requestId }, async () => {
        await new Promise((resolve) => setTimeout(resolve, delay));
        logger.info(requestId);
      });

    await Promise.all([handle('req-a', 15), handle('req-b', 1), handle('req-c', 8)]);

    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.requestId).toBe(line.msg);
  });

  it('when a child logger is made inside a context, then its lines carry the requestId and the child bindings', () => {
    const { logger, lines } = capture();
    const child = logger.child({ component: 'outbox' });
    withRequestContext({ requestId: 'req-9' }, () => child.warn('slow'));

    expect(lines[0]).toMatchObject({
      service: 'registry',
      component: 'outbox',
      requestId: 'req-9',
      level: 40,
    });
  });

  it('when the level is warn, then info lines are dropped and warn lines kept', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.info('dropped');
    logger.warn('kept');

    expect(lines.map((l) => l.msg)).toEqual(['kept']);
  });

  // The level comes from the service's typed config (LOG_LEVEL of @svc/config's baseEnvSchema),
  // handed in by whoever creates the logger; the logger itself never reads the environment.
  it('when no level is given, then info decides, whatever LOG_LEVEL says', () => {
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'error';
    try {
      const { logger, lines } = capture({});
      logger.debug('dropped');
      logger.info('kept');

      expect(lines.map((l) => l.msg)).toEqual(['kept']);
    } finally {
      if (previous === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = previous;
    }
  });

  it('when an error is logged, then its type, message and stack are in the line', () => {
    const { logger, lines } = capture();
    logger.error({ err: new TypeError('bad thing') }, 'failed');

    expect(lines[0]?.err).toMatchObject({
      type: 'TypeError',
      message: 'bad thing',
      stack: expect.stringContaining('TypeError'),
    });
  });
});

describe('request context', () => {
  it('when inside withRequestContext, then currentRequestId and currentRequestContext return it, and nothing outside', () => {
    const seen = withRequestContext({ requestId: 'req-1', platformId: 'plat_1' }, () => ({
      id: currentRequestId(),
      ctx: currentRequestContext(),
    }));

    expect(seen).toEqual({ id: 'req-1', ctx: { requestId: 'req-1', platformId: 'plat_1' } });
    expect(currentRequestId()).toBeUndefined();
    expect(currentRequestContext()).toBeUndefined();
  });

  it('when contexts are nested, then the inner one wins inside and the outer one comes back after', () => {
    const ids = withRequestContext({ requestId: 'outer' }, () => {
      const inner = withRequestContext({ requestId: 'inner' }, () => currentRequestId());
      return [inner, currentRequestId()];
    });

    expect(ids).toEqual(['inner', 'outer']);
  });

  it('when the function returns a value, then withRequestContext returns it', () => {
    expect(withRequestContext({ requestId: 'r' }, () => 42)).toBe(42);
  });
});

describe('the service key', () => {
  /** The raw JSON lines, unparsed: JSON.parse would hide a duplicate key. */
  function raw(): { logger: Logger; text: string[] } {
    const text: string[] = [];
    const logger = createLogger(
      'embedded',
      { level: 'info' },
      { write: (chunk: string) => void text.push(chunk) },
    );
    return { logger, text };
  }

  it('when a line names another service, then it has one service key, the logger’s, and the other as peerService', () => {
    const { logger, text } = raw();
    logger.info({ service: 'detection', queue: 'detection.identities' }, 'message dead-lettered');

    expect(text[0]?.match(/"service":/g)).toHaveLength(1);
    expect(JSON.parse(text[0]!)).toMatchObject({ service: 'embedded', peerService: 'detection' });
  });

  it('when a line repeats its own service, then the key is written once', () => {
    const { logger, text } = raw();
    logger.info({ service: 'embedded' }, 'started');

    expect(text[0]?.match(/"service":/g)).toHaveLength(1);
    expect(JSON.parse(text[0]!)).not.toHaveProperty('peerService');
  });
});
