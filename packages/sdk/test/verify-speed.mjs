// How many license credentials one core verifies per second (issue #31: at least 5,000), with
// the status list checked too: credentials checked for the first time (each one signature
// verification), and the same credentials checked again (the SDK keeps which exact credentials
// it verified, so a repeat costs no Ed25519 work). Not a test: it prints its figures.
// Against the built package:
//   cd packages/sdk && npx tsc -b && node test/verify-speed.mjs        (Node: node:crypto's Ed25519)
//   VERIFY_PATH=jose node test/verify-speed.mjs                        (the browser path: jose)
// Beside it, the floor: node:crypto's Ed25519 verify alone on the same bytes.
import { createRequire } from 'node:module';
import { verify } from 'node:crypto';

const require = createRequire(import.meta.url);
if (process.env.VERIFY_PATH === 'jose') delete process.getBuiltinModule; // as a browser: no node:crypto
const { StatusList } = require('@sd-jwt/jwt-status-list');
const { SignJWT, exportJWK, generateKeyPair } = require('jose');
const { verifyLicenseCredential } = require('../dist/index.js');

const seconds = Number(process.env.VERIFY_SECONDS ?? 5);
const count = Number(process.env.VERIFY_CREDENTIALS ?? 12000);
const issuer = 'https://svc.example';
const uri = `${issuer}/v1/svc/status-lists/1`;
const now = Math.floor(Date.now() / 1000);

const keys = { keys: [] };
const signers = [];
for (const kid of ['k1', 'k2']) {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  keys.keys.push({ ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' });
  signers.push({ kid, privateKey, publicKey });
}
const statuses = new Array(count + 8).fill(0);
const statusList = await new SignJWT({
  sub: uri,
  iat: now,
  exp: now + 3600,
  ttl: 60,
  status_list: { bits: 1, lst: new StatusList(statuses, 1).compressStatusList() },
})
  .setProtectedHeader({ alg: 'EdDSA', kid: 'k2', typ: 'statuslist+jwt' })
  .sign(signers[1].privateKey);
const credentials = [];
for (let idx = 0; idx < count; idx += 1) {
  const signer = signers[idx % 2];
  credentials.push(
    await new SignJWT({
      iss: issuer,
      sub: `lic_${idx.toString(36).padStart(12, '0')}`,
      iat: now,
      nbf: now,
      exp: now + 30 * 86400,
      boxId: 'box_0123456789ab',
      claimId: 'clm_0123456789ab',
      identityName: 'Ada Lovelace',
      platformId: 'plt_0123456789ab',
      tier: 'creator',
      allowedUses: ['avatar', 'chat'],
      status: { idx, uri, status_list: { idx, uri } },
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: signer.kid, typ: 'license+jwt' })
      .sign(signer.privateKey),
  );
}

// The floor and the first checks run in alternating blocks, so a busy machine slows both alike,
// and count this process's CPU time (checks per CPU-second: one core's worth), not wall time.
async function paired(blocks, floorOnce, sdkOnce) {
  const spent = { floor: 0, sdk: 0 };
  for (let block = 0; block < blocks; block += 1) {
    for (const [name, once] of [
      ['floor', floorOnce],
      ['sdk', sdkOnce],
    ]) {
      const start = process.cpuUsage();
      for (let i = block * 100; i < (block + 1) * 100; i += 1) await once(i);
      const { user, system } = process.cpuUsage(start);
      spent[name] += (user + system) / 1000;
    }
  }
  return { floor: (blocks * 100) / (spent.floor / 1000), sdk: (blocks * 100) / (spent.sdk / 1000) };
}

async function rate(once) {
  let done = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() < start + seconds * 1000) {
    for (let i = 0; i < 200; i += 1) await once(done + i);
    done += 200;
  }
  const { user, system } = process.cpuUsage(cpu);
  return done / ((user + system) / 1e6);
}

const floorInputs = credentials.map((jws) => {
  const [h, p, s] = jws.split('.');
  return { data: Buffer.from(`${h}.${p}`), sig: Buffer.from(s, 'base64url') };
});
const floorOnce = async (i) => {
  const { data, sig } = floorInputs[i];
  if (!verify(null, data, signers[i % 2].publicKey, sig)) throw new Error('floor: bad signature');
};
const path = process.env.VERIFY_PATH === 'jose' ? 'jose (browser path)' : 'node:crypto';
const check = (i) => verifyLicenseCredential(credentials[i], { keys, statusList, issuer });
for (let i = count - 200; i < count; i += 1) await check(i); // warm up on credentials not measured
const { floor, sdk: first } = await paired(Math.floor((count - 200) / 100), floorOnce, check);
const again = await rate((i) => check(i % 1000));
const figure = (perSecond) => `${Math.round(perSecond).toLocaleString('en')} per second`;
console.log(`per CPU-second of this process (one core's worth):`);
console.log(`node:crypto Ed25519 verify alone (the floor): ${figure(floor)}`);
console.log(
  `first check of each of ${(count - 200).toLocaleString('en')} credentials (${path}): ${figure(first)}, ${Math.round((first / floor) * 100)} % of the floor`,
);
console.log(`the same 1,000 credentials checked again (${path}): ${figure(again)}`);
const load = require('node:os').loadavg()[0].toFixed(2);
console.log(
  `goal 5,000/s: first checks ${first >= 5000 ? 'PASS' : 'MISS'}, repeats ${again >= 5000 ? 'PASS' : 'MISS'} (load average ${load})`,
);
