import type { WorkloadClient } from './client';
import type { WebhookReceiver } from './webhook-receiver';
import type { Chain } from './workload';

// What a platform can see from outside once the system has settled: every acknowledged write
// reads back, every effect the chain implies happened once (a violation, the identity boxed,
// the license, the usage), and every webhook the chain implies was delivered.

/** A problem found, sorted into what the closing table counts. */
export interface Finding {
  /** `inconsistent`: a record that contradicts itself (the transparency log's hashes). */
  kind: 'lost' | 'doubled' | 'inconsistent';
  what: string;
}

/** Checks of one chain that passed once are not asked again (effects do not go away). */
const settledChains = new WeakSet<Chain>();

function hookOf(
  receiver: WebhookReceiver,
  platformId: string,
  type: string,
  match: (data: Record<string, unknown>) => boolean,
): boolean {
  return receiver.received.some(
    (h) =>
      h.answered === 200 &&
      h.platform === platformId &&
      (h.body?.type ?? h.body?.event) === type &&
      match(h.body?.data ?? {}),
  );
}

/** The outside checks of one chain; [] when everything it acknowledged is there, once. */
export async function checkChain(
  client: WorkloadClient,
  receiver: WebhookReceiver,
  chain: Chain,
): Promise<Finding[]> {
  if (settledChains.has(chain)) return [];
  const found: Finding[] = [];
  const lost = (what: string) =>
    found.push({ kind: 'lost', what: `chain ${chain.no} (${chain.name}): ${what}` });
  const doubled = (what: string) =>
    found.push({ kind: 'doubled', what: `chain ${chain.no} (${chain.name}): ${what}` });
  const { owner, avatars, licensee } = chain.cast;

  if (chain.claimId !== undefined) {
    const claim = await client.read(owner.key, `/v1/svc/claims/${chain.claimId}`);
    if (claim.status !== 200) lost(`acknowledged claim ${chain.claimId} reads ${claim.status}`);
    else if (chain.verified === true && claim.body.data.status !== 'verified')
      lost(`claim ${chain.claimId} verified but reads ${claim.body.data.status}`);
    else if (chain.boxId !== undefined && claim.body.data.boxId !== chain.boxId)
      lost(`claim ${chain.claimId} does not show its box ${chain.boxId}`);
  }
  if (chain.boxId !== undefined) {
    const box = await client.read(owner.key, `/v1/svc/boxes/${chain.boxId}`);
    if (box.status !== 200) lost(`acknowledged box ${chain.boxId} reads ${box.status}`);
    const status = await client.read(avatars.key, `/identity/status/${chain.claimId}`);
    if (status.status !== 200 || status.body?.status !== 'BOXED')
      lost(
        `detection answers ${status.status} ${status.body?.status ?? status.body?.error?.code ?? ''} for boxed identity ${chain.claimId}`,
      );
  }
  if (chain.avatarReported === true && chain.boxId !== undefined) {
    const avatar = await client.read(avatars.key, `/v1/svc/avatars/${chain.avatarId}`);
    if (avatar.status !== 200) lost(`acknowledged avatar ${chain.avatarId} reads ${avatar.status}`);
    const violations = await client.read(avatars.key, `/v1/svc/violations?boxId=${chain.boxId}&limit=100`);
    const list = (violations.body?.data ?? []) as { id: string; avatar?: { id: string } }[];
    const mine = list.filter((v) => v.avatar?.id === chain.avatarId);
    if (violations.status !== 200 || mine.length === 0) {
      const seen = avatar.body?.data;
      const state =
        seen === undefined
          ? `reads ${avatar.status}`
          : `reads evaluation ${seen.evaluation}, match ${seen.match?.boxId ?? 'none'}${seen.match?.outcome === undefined ? '' : ` (${seen.match.outcome})`}`;
      lost(`avatar ${chain.avatarId} on box ${chain.boxId} never became a violation (the avatar ${state})`);
    } else if (mine.length > 1) doubled(`${mine.length} violations for avatar ${chain.avatarId}`);
    else {
      const violationId = mine[0]?.id;
      for (const [type, field] of [
        ['grace_period.started', 'violationId'],
        ['boxing.created', 'violation_id'],
        ['boxing.grace_started', 'violation_id'],
      ] as const) {
        if (!hookOf(receiver, avatars.id, type, (d) => d[field] === violationId))
          lost(`webhook ${type} for violation ${violationId} not delivered`);
      }
    }
  }
  if (chain.requestId !== undefined && chain.licenseId !== undefined) {
    const license = await client.read(licensee.key, `/v1/svc/licenses/${chain.licenseId}`);
    if (license.status !== 200 || license.body.data.status !== 'active')
      lost(`approved license ${chain.licenseId} reads ${license.status} ${license.body?.data?.status ?? ''}`);
    const all = await client.read(licensee.key, `/v1/svc/licenses?boxId=${chain.boxId}&limit=100`);
    if (all.status === 200 && all.body.meta.total > 1)
      doubled(`${all.body.meta.total} licenses of one request on box ${chain.boxId}`);
    if (!hookOf(receiver, licensee.id, 'license.approved', (d) => d.license_id === chain.licenseId))
      lost(`webhook license.approved for ${chain.licenseId} not delivered`);
    if (chain.usageReported === true) {
      const usage = license.body?.data?.usage;
      if (usage?.currentPeriod === chain.period && usage.revenue !== 100)
        lost(`usage of ${chain.licenseId} reads revenue ${usage.revenue}, reported 100`);
      if (
        !hookOf(
          receiver,
          licensee.id,
          'payment.due',
          (d) => d.license_id === chain.licenseId && d.period === chain.period,
        )
      )
        lost(`webhook payment.due for ${chain.licenseId} ${chain.period} not delivered`);
    }
  }
  if (found.length === 0) settledChains.add(chain);
  return found;
}

/** Every chain's outside checks, a few at a time (the machine is small), until `deadline`. */
export async function checkChains(
  client: WorkloadClient,
  receiver: WebhookReceiver,
  chains: Chain[],
  deadline: number,
  inFlight?: { from: number; to: number }[],
  concurrency = 4,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const queue = [...chains];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let chain = queue.shift(); chain !== undefined; chain = queue.shift()) {
        if (performance.now() > deadline) {
          findings.push({ kind: 'lost', what: `chain ${chain.no} (${chain.name}): not checked in time` });
          continue;
        }
        findings.push(...(await checkChain(client, receiver, chain)));
      }
    }),
  );
  for (const hook of receiver.repeatedAfterSuccess(inFlight)) {
    // When: the first 200 and the repeat, in the suite's clock (performance.now, seconds).
    const first = receiver.received.find((r) => r.webhookId === hook.webhookId && r.answered === 200);
    const when =
      first === undefined
        ? ''
        : ` (answered 200 at ${(first.at / 1000).toFixed(1)} s, again at ${(hook.at / 1000).toFixed(1)} s)`;
    findings.push({
      kind: 'doubled',
      what: `webhook ${hook.webhookId} (${hook.body?.type ?? hook.body?.event}) delivered again after a 200${when}`,
    });
  }
  return findings;
}

/**
 * Claims of the chains' names that exist more than once, read page by page through the owners'
 * lists (for a deployment whose databases the suite cannot query, the embedded default).
 */
export async function duplicateClaims(client: WorkloadClient, chains: Chain[]): Promise<Finding[]> {
  const found: Finding[] = [];
  const names = new Set(chains.filter((c) => c.claimId !== undefined).map((c) => c.name));
  const owners = new Map(chains.map((c) => [c.cast.owner.id, c.cast.owner.key]));
  for (const key of owners.values()) {
    const counts = new Map<string, number>();
    for (let offset = 0; offset < 10_000; offset += 100) {
      const page = await client.read(key, `/v1/svc/claims?limit=100&offset=${offset}`);
      const items = (page.body?.data ?? []) as { name: string }[];
      for (const item of items)
        if (names.has(item.name)) counts.set(item.name, (counts.get(item.name) ?? 0) + 1);
      if (page.status !== 200 || items.length < 100) break;
    }
    for (const [name, n] of counts)
      if (n > 1) found.push({ kind: 'doubled', what: `${n} claims named ${name}` });
  }
  return found;
}
