import { ManualClock } from '@svc/clock';
import { AppError } from '@svc/errors';
import {
  FetchGuardError,
  type FetchGuardReason,
  type GuardedResponse,
  type guardedFetch,
} from '@svc/fetch-guard';
import { fingerprintToHex } from '@svc/image-fingerprint';
import sharp from 'sharp';
import type { FaceExaminer } from '@svc/face-engine';
import { ImageFetcher } from '../../src/data-access/image-fetcher';
import { PictureBudget } from '../../src/domain/face-matching/picture-budget';

// The fetch is a fake: these tests are about the cache, the sharing of fetches and the mapping of
// errors. The real guard against a real server is in test/integration/image-fetch-guard.test.ts.

let png: Buffer;
let otherPng: Buffer;

beforeAll(async () => {
  const picture = (colour: string, circle: string, x: number) =>
    sharp(
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="64"><rect width="96" height="64" fill="${colour}"/>` +
          `<circle cx="${x}" cy="30" r="20" fill="${circle}"/></svg>`,
      ),
    )
      .png()
      .toBuffer();
  png = await picture('#2040a0', '#f0d020', 25);
  otherPng = await picture('#a02020', '#20f0f0', 70);
});

function response(
  body: Buffer,
  status = 200,
  contentType: string | undefined = 'image/png',
): GuardedResponse {
  return {
    status,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
    finalUrl: 'https://images.example.com/a.png',
  };
}

interface FakeFetch {
  fetch: typeof guardedFetch;
  calls: { url: string; options: Parameters<typeof guardedFetch>[1] }[];
}

function fakeFetch(answer: (url: string) => Promise<GuardedResponse>): FakeFetch {
  const calls: FakeFetch['calls'] = [];
  const fetch = (async (url: string, options?: Parameters<typeof guardedFetch>[1]) => {
    calls.push({ url, options });
    return answer(url);
  }) as typeof guardedFetch;
  return { fetch, calls };
}

async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

const URL_A = 'https://images.example.com/a.png';
const URL_B = 'https://images.example.com/b.png';

describe('ImageFetcher cache', () => {
  it('when a URL is asked for twice within the TTL, then it is fetched once', async () => {
    const clock = new ManualClock();
    const fake = fakeFetch(async () => response(png));
    const fetcher = new ImageFetcher({ allowPrivateFetch: false, clock, fetch: fake.fetch, ttlMs: 60_000 });
    const first = await fetcher.fingerprintOf(URL_A);
    clock.advance(59_999);
    const second = await fetcher.fingerprintOf(URL_A);
    expect(fingerprintToHex(second)).toBe(fingerprintToHex(first));
    expect(fake.calls).toHaveLength(1);
    expect(fetcher.stats()).toEqual({ hits: 1, misses: 1, size: 1 });
  });

  it('when the TTL has passed, then the URL is fetched again', async () => {
    const clock = new ManualClock();
    const fake = fakeFetch(async () => response(png));
    const fetcher = new ImageFetcher({ allowPrivateFetch: false, clock, fetch: fake.fetch, ttlMs: 60_000 });
    await fetcher.fingerprintOf(URL_A);
    clock.advance(60_000);
    await fetcher.fingerprintOf(URL_A);
    expect(fake.calls).toHaveLength(2);
  });

  it('when no TTL is given, then fingerprints are kept for one hour and no longer', async () => {
    const clock = new ManualClock();
    const fake = fakeFetch(async () => response(png));
    const fetcher = new ImageFetcher({ allowPrivateFetch: false, clock, fetch: fake.fetch });
    await fetcher.fingerprintOf(URL_A);
    clock.advance(3_599_999);
    await fetcher.fingerprintOf(URL_A);
    expect(fake.calls).toHaveLength(1);
    clock.advance(1);
    await fetcher.fingerprintOf(URL_A);
    expect(fake.calls).toHaveLength(2);
  });

  it('when more URLs than maxEntries are cached, then the oldest is evicted first', async () => {
    const clock = new ManualClock();
    const fake = fakeFetch(async () => response(png));
    const fetcher = new ImageFetcher({ allowPrivateFetch: false, clock, fetch: fake.fetch, maxEntries: 2 });
    await fetcher.fingerprintOf('https://images.example.com/1.png');
    await fetcher.fingerprintOf('https://images.example.com/2.png');
    await fetcher.fingerprintOf('https://images.example.com/3.png');
    expect(fetcher.stats().size).toBe(2);
    await fetcher.fingerprintOf('https://images.example.com/3.png');
    await fetcher.fingerprintOf('https://images.example.com/2.png');
    expect(fake.calls).toHaveLength(3);
    await fetcher.fingerprintOf('https://images.example.com/1.png');
    expect(fake.calls).toHaveLength(4);
  });

  it('when different URLs are asked for, then each gets its own picture', async () => {
    const fake = fakeFetch(async (url) => response(url === URL_A ? png : otherPng));
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    const a = await fetcher.fingerprintOf(URL_A);
    const b = await fetcher.fingerprintOf(URL_B);
    expect(fingerprintToHex(a)).not.toBe(fingerprintToHex(b));
  });

  it('when a fetch fails, then the failure is not cached', async () => {
    let fail = true;
    const fake = fakeFetch(async () => {
      if (fail) throw new FetchGuardError('timeout', 'no answer');
      return response(png);
    });
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    await expect(fetcher.fingerprintOf(URL_A)).rejects.toBeInstanceOf(AppError);
    fail = false;
    await expect(fetcher.fingerprintOf(URL_A)).resolves.toHaveProperty('words');
    expect(fake.calls).toHaveLength(2);
  });
});

describe('ImageFetcher sharing', () => {
  it('when the same URL is asked for concurrently, then one fetch serves every caller', async () => {
    let release: (value: GuardedResponse) => void = () => undefined;
    const fake = fakeFetch(
      () =>
        new Promise<GuardedResponse>((resolve) => {
          release = resolve;
        }),
    );
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    const waiting = [1, 2, 3, 4, 5].map(() => fetcher.fingerprintOf(URL_A));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.calls).toHaveLength(1);
    release(response(png));
    const results = await Promise.all(waiting);
    expect(new Set(results.map(fingerprintToHex)).size).toBe(1);
    expect(fetcher.stats()).toMatchObject({ hits: 4, misses: 1 });
  });

  it('when a shared fetch fails, then every caller gets the error and the next call fetches again', async () => {
    let calls = 0;
    const fake = fakeFetch(async () => {
      calls += 1;
      if (calls === 1) throw new FetchGuardError('unreachable', 'connect ECONNREFUSED 10.0.0.7:80');
      return response(png);
    });
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    const results = await Promise.allSettled([fetcher.fingerprintOf(URL_A), fetcher.fingerprintOf(URL_A)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(fetcher.fingerprintOf(URL_A)).resolves.toHaveProperty('words');
    expect(fake.calls).toHaveLength(2);
  });
});

describe('ImageFetcher errors', () => {
  it.each(['not a url', '/relative/path.png', 'ftp://images.example.com/a.png', 'file:///etc/passwd', ''])(
    'when the URL is %p, then it is INVALID_IMAGE_URL without a fetch',
    async (url) => {
      const fake = fakeFetch(async () => response(png));
      const fetcher = new ImageFetcher({
        allowPrivateFetch: false,
        clock: new ManualClock(),
        fetch: fake.fetch,
      });
      const error = await appErrorOf(fetcher.fingerprintOf(url));
      expect(error).toMatchObject({
        code: 'INVALID_IMAGE_URL',
        status: 422,
        details: { reason: 'invalid_url' },
      });
      expect(fake.calls).toHaveLength(0);
    },
  );

  it('when the guard refuses the body as too large, then it is IMAGE_TOO_LARGE', async () => {
    const fake = fakeFetch(async () => {
      throw new FetchGuardError('too_large', 'the response is larger than 10485760 bytes');
    });
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    const error = await appErrorOf(fetcher.fingerprintOf(URL_A));
    expect(error).toMatchObject({ code: 'IMAGE_TOO_LARGE', status: 413, details: { reason: 'too_large' } });
  });

  const refusals: FetchGuardReason[] = [
    'private_address',
    'scheme',
    'invalid_url',
    'timeout',
    'unreachable',
    'too_many_redirects',
  ];
  it.each(refusals)(
    'when the guard refuses with %s, then it is INVALID_IMAGE_URL naming the reason',
    async (reason) => {
      const fake = fakeFetch(async () => {
        throw new FetchGuardError(reason, 'connect ECONNREFUSED 10.1.2.3:8080');
      });
      const fetcher = new ImageFetcher({
        allowPrivateFetch: false,
        clock: new ManualClock(),
        fetch: fake.fetch,
      });
      const error = await appErrorOf(fetcher.fingerprintOf(URL_A));
      expect(error).toMatchObject({ code: 'INVALID_IMAGE_URL', status: 422, details: { reason } });
      // The guard's own message (addresses, ports) is not passed on to the caller.
      expect(error.message).not.toContain('10.1.2.3');
    },
  );

  it('when the server answers 404, then it is INVALID_IMAGE_URL naming the status', async () => {
    const fake = fakeFetch(async () => response(Buffer.from('not found'), 404, 'text/plain'));
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    const error = await appErrorOf(fetcher.fingerprintOf(URL_A));
    expect(error).toMatchObject({
      code: 'INVALID_IMAGE_URL',
      details: { reason: 'http_status', status: 404 },
    });
    expect(error.message).toContain('404');
  });

  it.each(['text/html; charset=utf-8', 'text/plain', 'application/json'])(
    'when the content type is %s, then it is INVALID_IMAGE_URL even if the bytes are a picture',
    async (contentType) => {
      const fake = fakeFetch(async () => response(png, 200, contentType));
      const fetcher = new ImageFetcher({
        allowPrivateFetch: false,
        clock: new ManualClock(),
        fetch: fake.fetch,
      });
      const error = await appErrorOf(fetcher.fingerprintOf(URL_A));
      expect(error).toMatchObject({
        code: 'INVALID_IMAGE_URL',
        details: { reason: 'not_an_image', contentType },
      });
    },
  );

  it('when there is no content type, then the bytes decide', async () => {
    const fake = fakeFetch(async () => response(png, 200, undefined));
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    await expect(fetcher.fingerprintOf(URL_A)).resolves.toHaveProperty('words');
  });

  it('when the bytes labelled image/png cannot be decoded, then it is INVALID_IMAGE_URL', async () => {
    const fake = fakeFetch(async () => response(Buffer.from('<html>hello</html>'), 200, 'image/png'));
    const fetcher = new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    const error = await appErrorOf(fetcher.fingerprintOf(URL_A));
    expect(error).toMatchObject({ code: 'INVALID_IMAGE_URL', details: { reason: 'not_an_image' } });
  });

  it('when fetching, then the guard gets the contract limits and the private-fetch setting', async () => {
    const fake = fakeFetch(async () => response(png));
    const fetcher = new ImageFetcher({
      allowPrivateFetch: true,
      clock: new ManualClock(),
      fetch: fake.fetch,
    });
    await fetcher.fingerprintOf(URL_A);
    expect(fake.calls[0]?.options).toMatchObject({
      allowPrivate: true,
      timeoutMs: 5000,
      maxBytes: 10 * 1024 * 1024,
      maxRedirects: 3,
    });
  });
});

describe('pictures the face workers did not reach in time (docs/spec/contracts.md §17)', () => {
  // Workers that never answer: every examination runs past its deadline.
  const stuckExaminer = { examine: () => new Promise<never>(() => undefined) } as unknown as FaceExaminer;
  const fetcherFor = (body: Buffer) =>
    new ImageFetcher({
      allowPrivateFetch: false,
      clock: new ManualClock(),
      fetch: fakeFetch(async () => response(body)).fetch,
      faces: {
        examiner: stuckExaminer,
        budget: new PictureBudget({ concurrency: 1, perPlatform: 8, now: () => new Date() }),
      },
    });

  it('when the picture is small, then it is fingerprinted without its faces', async () => {
    const analysis = await fetcherFor(png).analyse(URL_A, { platformId: 'plat_a', timeoutMs: 20 });
    expect(analysis.faces).toBeNull();
    expect(analysis.fingerprint).toBeDefined();
  });

  it('when the picture is larger than the event loop’s side may decode, then 422 examination_timeout, nothing decoded', async () => {
    // 5000 × 4000 = 20 megapixels: under the checks' 24, over the fallback's 16.
    const large = await sharp({ create: { width: 5000, height: 4000, channels: 3, background: '#345' } })
      .png()
      .toBuffer();
    const err = await appErrorOf(fetcherFor(large).analyse(URL_A, { platformId: 'plat_a', timeoutMs: 20 }));
    expect(err.code).toBe('INVALID_IMAGE_URL');
    expect(err.details).toMatchObject({
      reason: 'examination_timeout',
      pixels: 20_000_000,
      maxPixels: 16_000_000,
    });
  });
});
