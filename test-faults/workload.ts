import { randomInt } from 'node:crypto';
import type { RequestRecord, WorkloadClient } from './client';

// A steady workload of complete chains through the gateway, as platforms use the service:
// an identity owner claims a name, verifies it (sandbox helper) and boxes it (MONETIZE: a
// license is approved at once and royalties accrue); an avatar platform reports an avatar
// under that name, which must become a violation (and its grace-period webhooks); a licensee
// requests a license (license.approved webhook) and reports a month's usage (payment.due).

export interface Platform {
  id: string;
  key: string;
}

/** The three platforms one runner acts for; the avatar and licensee platforms have a webhook endpoint. */
export interface Cast {
  owner: Platform;
  avatars: Platform;
  licensee: Platform;
}

/** One chain and how far it got: an id is set when its write was acknowledged. */
export interface Chain {
  no: number;
  window: string;
  cast: Cast;
  name: string;
  avatarId: string;
  period: string;
  claimId?: string;
  verified?: boolean;
  boxId?: string;
  avatarReported?: boolean;
  requestId?: string;
  licenseId?: string;
  usageReported?: boolean;
  /** Why the chain stopped early: the step and its last answer. */
  stopped?: string;
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ru',
  'ten',
  'vas',
  'quil',
  'dor',
  'bri',
  'zen',
  'fal',
  'mor',
  'pex',
  'sun',
  'tav',
  'ober',
  'gild',
  'hax',
  'jor',
  'nim',
  'plo',
  'rask',
  'sel',
  'ulm',
  'vex',
  'wen',
  'yar',
  'zo',
];

/** A made-up two-word name, far from every other one the suite makes (names match fuzzily). */
export function randomName(): string {
  const word = () => {
    const parts = Array.from({ length: 3 + randomInt(2) }, () => SYLLABLES[randomInt(SYLLABLES.length)]);
    const text = parts.join('');
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  return `${word()} ${word()}`;
}

/** At most one chain per runner every this long. */
const CHAIN_INTERVAL_MS = 1500;

function currentPeriod(): string {
  const now = new Date();
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
}

function refusal(step: string, record: RequestRecord): string {
  const code = record.body?.error?.code;
  return `${step}: ${record.status === 0 ? 'no answer' : record.status}${code ? ` ${code}` : ''}`;
}

export class Workload {
  readonly chains: Chain[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private counter = 0;
  /** The platforms of each runner, once set up. */
  readonly casts: Cast[] = [];

  constructor(
    readonly client: WorkloadClient,
    private readonly imageBaseUrl: string,
  ) {}

  /** Creates `runners` casts of platforms (operator API) with webhook endpoints on the receiver. */
  async setup(adminToken: string, runners: number, receiverUrl: string): Promise<void> {
    const platform = async (role: string): Promise<Platform> => {
      const created = await this.client.write(adminToken, 'POST', '/admin/platforms', {
        name: `Faults ${role} ${randomName()}`,
        plan: 'enterprise',
        limits: { perMinute: 100_000, perDay: 10_000_000 },
      });
      if (!created.acknowledged) throw new Error(`platform not created: ${JSON.stringify(created.body)}`);
      const id = created.body.data.id as string;
      const key = await this.client.write(adminToken, 'POST', `/admin/platforms/${id}/keys`, {});
      if (!key.acknowledged) throw new Error(`key not issued: ${JSON.stringify(key.body)}`);
      return { id, key: key.body.data.key as string };
    };
    const endpoint = async (p: Platform) => {
      const created = await this.client.write(p.key, 'POST', '/v1/svc/webhooks', {
        url: `${receiverUrl}/hooks/${p.id}`,
      });
      if (!created.acknowledged) throw new Error(`endpoint not created: ${JSON.stringify(created.body)}`);
    };
    for (let i = 0; i < runners; i++) {
      const cast = {
        owner: await platform('owner'),
        avatars: await platform('avatars'),
        licensee: await platform('licensee'),
      };
      await endpoint(cast.avatars);
      await endpoint(cast.licensee);
      this.casts.push(cast);
    }
  }

  /** Starts one loop of chains per cast, labelled `window`, until stop(). */
  start(window: string): void {
    if (this.running) throw new Error('the workload is already running');
    this.running = true;
    this.client.window = window;
    this.loops = this.casts.map(async (cast) => {
      while (this.running) {
        const started = performance.now();
        await this.runChain(cast, window);
        // A steady rate: a chain refused at once must not turn the runner into a flood.
        const rest = CHAIN_INTERVAL_MS - (performance.now() - started);
        if (rest > 0 && this.running) await new Promise((resolve) => setTimeout(resolve, rest));
      }
    });
  }

  /** Stops starting chains and waits for those in flight (each request is bounded by its deadline). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** The chains of one window. */
  of(window: string): Chain[] {
    return this.chains.filter((c) => c.window === window);
  }

  private async runChain(cast: Cast, window: string): Promise<void> {
    const no = ++this.counter;
    const chain: Chain = {
      no,
      window,
      cast,
      name: randomName(),
      avatarId: `faults-avatar-${no}`,
      period: currentPeriod(),
    };
    this.chains.push(chain);
    const c = this.client;

    const claim = await c.write(cast.owner.key, 'POST', '/v1/svc/claims', {
      name: chain.name,
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: `${this.imageBaseUrl}/images/ref-${no}.png`, isPrimary: true }],
    });
    if (!claim.acknowledged) return void (chain.stopped = refusal('claim', claim));
    chain.claimId = claim.body.data.id as string;

    const verified = await c.write(
      cast.owner.key,
      'POST',
      `/v1/svc/test-helpers/claims/${chain.claimId}/verify`,
      {
        tier: 'SILVER',
      },
    );
    if (!verified.acknowledged) return void (chain.stopped = refusal('verify', verified));
    chain.verified = true;

    const box = await c.write(cast.owner.key, 'POST', '/v1/svc/boxes', {
      claimId: chain.claimId,
      policy: 'MONETIZE',
      policyConfig: { royaltyRate: 0.1 },
    });
    if (!box.acknowledged) return void (chain.stopped = refusal('box', box));
    chain.boxId = box.body.data.id as string;

    // The avatar platform and the licensee act at the same time, as two customers would.
    await Promise.all([
      (async () => {
        const avatar = await c.write(cast.avatars.key, 'POST', '/v1/svc/avatars', {
          id: chain.avatarId,
          name: chain.name,
          creatorId: `creator-${no}`,
          userCount: 120,
        });
        // A lost answer (the process died between its commit and its answer): as ADR 0011 tells
        // an integrator, read the avatar it was about instead of retrying.
        const reported =
          avatar.acknowledged ||
          (avatar.answerLost === true &&
            (await c.read(cast.avatars.key, `/v1/svc/avatars/${chain.avatarId}`)).status === 200);
        if (reported) chain.avatarReported = true;
        else chain.stopped = refusal('avatar', avatar);
      })(),
      (async () => {
        const request = await c.write(cast.licensee.key, 'POST', '/v1/svc/licenses/request', {
          boxId: chain.boxId,
          tier: 'personal',
          useCase: 'Fan chat avatar',
          acceptGuidelines: true,
        });
        if (!request.acknowledged) return void (chain.stopped = refusal('license request', request));
        chain.requestId = request.body.data.id as string;
        const seen = await c.read(cast.licensee.key, `/v1/svc/licenses/request/${chain.requestId}`);
        const licenseId = seen.body?.data?.license?.id as string | undefined;
        if (!seen.acknowledged || licenseId === undefined)
          return void (chain.stopped = refusal('license of the request', seen));
        chain.licenseId = licenseId;
        const usage = await c.write(cast.licensee.key, 'POST', `/v1/svc/licenses/${licenseId}/usage`, {
          period: chain.period,
          metrics: { subscribers: 40, messages: 900 },
          revenue: { subscriptions: 100 },
        });
        // A lost answer: the report was recorded; the license's figures show it (outside checks).
        if (usage.acknowledged || usage.answerLost === true) chain.usageReported = true;
        else chain.stopped = refusal('usage', usage);
      })(),
    ]);
  }
}
