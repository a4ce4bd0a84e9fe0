// Goal 2 of issue #31: one credential verified offline at least 5,000 times a second on one core.
//
// Real credentials: licensing's signCredential over an activated license, each with its own
// license id, so every token is distinct. The SDK remembers up to 4,096 tokens it has verified
// (a credential checked again skips the Ed25519 step); the pool is larger than that and walked in
// order, so every verification timed here is a first one, signature included. The key set comes
// from the SDK's createKeyCache, fetched once (a fetch that answers the JWKS in memory) and then
// read from the cache for every token, as a platform checking avatars would. Same-run baseline:
// jose's bare compactVerify of the same tokens with the key imported once (the signature and
// nothing else), so the SDK's own checks show as the difference. The two alternate, pass by pass,
// in one process on one thread; the median pass of each is reported, per CPU-second
// (process.cpuUsage, user + system) and per wall second.
import { performance } from 'node:perf_hooks';
import { ISSUER } from './activation';
import { jose, licensing, sdk, type License, type SigningKey } from './workspace';

export interface RatePass {
  perCpuSecond: number;
  perWallSecond: number;
}

export interface VerifyFigures {
  tokens: number;
  passes: number;
  sdk: RatePass;
  jose: RatePass;
  /** The SDK on one token again and again (its verified-token memory answers). */
  sdkRepeated: RatePass;
}

async function pass(tokens: readonly string[], verify: (token: string) => Promise<void>): Promise<RatePass> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const token of tokens) await verify(token);
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    perCpuSecond: tokens.length / ((used.user + used.system) / 1e6),
    perWallSecond: tokens.length / wall,
  };
}

const medianPass = (passes: RatePass[]): RatePass => {
  const at = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return {
    perCpuSecond: at(passes.map((p) => p.perCpuSecond)),
    perWallSecond: at(passes.map((p) => p.perWallSecond)),
  };
};

export async function measureVerification(
  key: SigningKey,
  license: License,
  tokenCount: number,
  passes: number,
): Promise<VerifyFigures> {
  const { signCredential } = licensing();
  const { createKeyCache, verifyLicenseCredential } = sdk();
  const { compactVerify, importJWK } = jose();
  const entry = { listId: 1, idx: 0 };
  const now = new Date();
  const tokens: string[] = [];
  for (let i = 0; i < tokenCount; i += 1) {
    tokens.push(
      await signCredential(key, ISSUER, { ...license, id: `${license.id}_${i}` }, { ...entry, idx: i }, now),
    );
  }
  const jwks = JSON.stringify({ keys: [key.publicJwk] });
  const cache = createKeyCache(ISSUER, {
    fetch: () =>
      Promise.resolve(
        new Response(jwks, {
          headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' },
        }),
      ),
  });
  await cache.keys();
  const publicKey = await importJWK({ ...key.publicJwk }, 'EdDSA');

  let failures = 0;
  const viaSdk = async (token: string) => {
    const verified = await verifyLicenseCredential(token, { keys: await cache.keys(), issuer: cache.issuer });
    if (verified.keyId !== key.kid) failures += 1;
  };
  const viaJose = async (token: string) => {
    const { payload } = await compactVerify(token, publicKey, { algorithms: ['EdDSA'] });
    if (payload.length === 0) failures += 1;
  };
  // Warm-up of both paths (JIT, the SDK's imported key), on tokens outside the timed pool.
  const warm = tokens.slice(0, 500);
  for (const token of warm) {
    await viaSdk(token);
    await viaJose(token);
  }
  const timed = tokens.slice(500);
  const sdkPasses: RatePass[] = [];
  const josePasses: RatePass[] = [];
  for (let i = 0; i < passes; i += 1) {
    sdkPasses.push(await pass(timed, viaSdk));
    josePasses.push(await pass(timed, viaJose));
  }
  const one = timed[0] as string;
  const repeated = await pass(
    Array.from({ length: timed.length }, () => one),
    viaSdk,
  );
  if (failures > 0) throw new Error(`${failures} verifications answered the wrong key or an empty payload`);
  return {
    tokens: timed.length,
    passes,
    sdk: medianPass(sdkPasses),
    jose: medianPass(josePasses),
    sdkRepeated: repeated,
  };
}
