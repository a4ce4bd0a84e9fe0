import { z } from 'zod';
import { ConfigError, env, loadConfig } from '../../src';

function load(field: z.ZodType, value: string | undefined): unknown {
  const config: Readonly<Record<string, unknown>> = loadConfig(z.object({ VALUE: field }), { VALUE: value });
  return config.VALUE;
}

function problemOf(field: z.ZodType, value: string): string {
  try {
    load(field, value);
  } catch (err) {
    if (err instanceof ConfigError && err.problems[0]?.key === 'VALUE') return err.problems[0].message;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('env.boolean', () => {
  it.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('when the value is %s, then it is %s', (value, expected) => {
    expect(load(env.boolean(!expected), value)).toBe(expected);
  });

  it('when the variable is unset or empty, then the fallback is used', () => {
    expect(load(env.boolean(true), undefined)).toBe(true);
    expect(load(env.boolean(false), undefined)).toBe(false);
    expect(load(env.boolean(true), '')).toBe(true);
  });

  it('when the value is anything else, then it is refused with "expected true or false"', () => {
    expect(problemOf(env.boolean(false), 'maybe')).toBe('expected true or false');
    expect(problemOf(env.boolean(false), 'TRUE ')).toBe('expected true or false');
  });
});

describe('env.port', () => {
  it('when the value is a port, then it is a number', () => {
    expect(load(env.port(8080), '3000')).toBe(3000);
    expect(load(env.port(8080), '0')).toBe(0);
    expect(load(env.port(8080), '65535')).toBe(65535);
  });

  it('when the variable is unset, empty or blank, then the fallback is used, never port 0', () => {
    expect(load(env.port(8080), undefined)).toBe(8080);
    expect(load(env.port(8080), '')).toBe(8080);
    expect(load(env.port(8080), '  ')).toBe(8080);
  });

  it.each(['65536', '-1', '80.5', 'http', '8080abc'])('when the value is %s, then it is refused', (value) => {
    expect(problemOf(env.port(8080), value)).toEqual(expect.any(String));
  });
});

describe('env.int', () => {
  it('when the value is a whole number of zero or more, then it is that number', () => {
    expect(load(env.int(30_000), '5000')).toBe(5000);
    expect(load(env.int(30_000), '0')).toBe(0);
  });

  it('when the variable is unset or empty, then the fallback is used, never 0', () => {
    expect(load(env.int(30_000), undefined)).toBe(30_000);
    expect(load(env.int(30_000), '')).toBe(30_000);
  });

  it.each(['-5', '1.5', 'ten'])('when the value is %s, then it is refused', (value) => {
    expect(problemOf(env.int(1), value)).toEqual(expect.any(String));
  });
});

describe('env.url', () => {
  it('when the URL has one of the schemes, then it is kept as written', () => {
    expect(load(env.url(['http', 'https']), 'https://registry.internal:8081')).toBe(
      'https://registry.internal:8081',
    );
    expect(load(env.url(['amqp', 'amqps']), 'amqp://guest:guest@127.0.0.1:5672')).toBe(
      'amqp://guest:guest@127.0.0.1:5672',
    );
  });

  it('when the scheme is another or the value is not a URL, then it is refused naming the schemes', () => {
    expect(problemOf(env.url(['http', 'https']), 'ftp://example.com')).toBe('expected a http or https URL');
    expect(problemOf(env.url(['http', 'https']), 'registry:8081/x y')).toBe('expected a http or https URL');
    expect(problemOf(env.url(['http', 'https']), 'not a url')).toBe('expected a http or https URL');
  });

  it('when the URL is required and unset, then it is refused', () => {
    expect(() => load(env.url(['http']), undefined)).toThrow(ConfigError);
  });

  it('when the URL is optional and unset, then it is undefined', () => {
    expect(load(env.url(['http']).optional(), undefined)).toBeUndefined();
  });
});
