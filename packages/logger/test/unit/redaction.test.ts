import { createLogger } from '../../src';

function logged(fields: Record<string, unknown>): string {
  let out = '';
  const logger = createLogger(
    'gateway',
    { level: 'info' },
    { write: (chunk: string) => void (out += chunk) },
  );
  logger.info(fields, 'request');
  return out;
}

const KEY = 'svc_test_4eC39HqLyjWDarjtT1zdp7dc4eC39HqL';

describe('redaction', () => {
  it.each([
    [
      'the request headers',
      { req: { headers: { authorization: `Bearer ${KEY}`, host: 'api.example' } } },
      { req: { headers: { authorization: '[redacted]', host: 'api.example' } } },
    ],
    [
      'plain headers',
      { headers: { authorization: `Bearer ${KEY}` } },
      { headers: { authorization: '[redacted]' } },
    ],
    [
      'the headers of an outbound call',
      { upstream: { headers: { authorization: `Bearer ${KEY}` } } },
      { upstream: { headers: { authorization: '[redacted]' } } },
    ],
    ['a top-level authorization', { authorization: `Bearer ${KEY}` }, { authorization: '[redacted]' }],
    [
      'a nested authorization',
      { call: { authorization: `Bearer ${KEY}` } },
      { call: { authorization: '[redacted]' } },
    ],
    ['a top-level key', { key: KEY }, { key: '[redacted]' }],
    [
      'an issued key object',
      { issued: { id: 'key_1', key: KEY } },
      { issued: { id: 'key_1', key: '[redacted]' } },
    ],
    ['a top-level secret', { secret: `whsec_${KEY}` }, { secret: '[redacted]' }],
    [
      'a webhook endpoint',
      { endpoint: { url: 'https://hooks.example', secret: `whsec_${KEY}` } },
      { endpoint: { url: 'https://hooks.example', secret: '[redacted]' } },
    ],
  ])(
    'when %s carry a credential, then the line shows [redacted] and not the value',
    (_where, fields, expected) => {
      const line = logged(fields);

      expect(line).not.toContain(KEY);
      expect(JSON.parse(line)).toMatchObject(expected);
    },
  );

  it('when other fields are logged, then they are left as they are', () => {
    const line = JSON.parse(logged({ keyId: 'key_1', platformId: 'plat_1', status: 401 }));

    expect(line).toMatchObject({ keyId: 'key_1', platformId: 'plat_1', status: 401 });
  });
});
