import { useQuery, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap } from './client';
import { nowMs } from './clock';
import { useSession } from './session';

// "Now" on the clock the tenant's deadlines run on (issue "Polish"). In production that is the
// browser's clock. In the sandbox a platform's grace periods, reminders and license expiries run on
// its sandbox clock, which advance-time moves forward: a grace period that ends tomorrow on it must
// not read "30 days left". The clock is read once (GET /v1/svc/test-helpers/clock, issued with the
// page's other reads, so it rides in the same batch) and kept as how far it runs ahead of the
// browser's clock; advance-time's answer updates it. A creator's pages count on the browser's clock:
// the deadlines they show run on the hosting platform's clock, which the creator cannot read.

const AHEAD_KEY = ['sandbox-clock-ahead'] as const;

/** Keeps the sandbox clock's time from an advance-time answer: pages count down from it. */
export function rememberSandboxNow(client: QueryClient, sandboxNow: string): void {
  const at = Date.parse(sandboxNow);
  if (Number.isFinite(at)) client.setQueryData(AHEAD_KEY, at - nowMs());
}

/**
 * Milliseconds since the epoch on the tenant's clock, read again every `everyMs` so that a
 * countdown moves while the page is open.
 */
export function useClockNow(everyMs = 30_000): number {
  const { data: session } = useSession();
  const sandboxPlatform = session?.environment === 'sandbox' && session.account.role === 'platform';
  const { data: ahead = 0 } = useQuery({
    queryKey: AHEAD_KEY,
    enabled: sandboxPlatform,
    queryFn: async () => {
      const { data } = await unwrap(api.GET('/v1/svc/test-helpers/clock'));
      return Date.parse(data.now) - nowMs();
    },
    staleTime: 5 * 60_000,
  });
  const [browserNow, setBrowserNow] = useState(nowMs);
  useEffect(() => {
    const timer = setInterval(() => setBrowserNow(nowMs()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return browserNow + (sandboxPlatform ? ahead : 0);
}
