import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { nowMs } from '../api/clock';
import { ApiError } from '../api/http';

/**
 * Says, while a page waits out a spent request budget, how long it waits: the queries retry by
 * themselves after Retry-After (api/retry.ts), so the page fills in without a reload. Gone once a
 * call succeeds again.
 */
export function RateLimitNotice() {
  const cache = useQueryClient().getQueryCache();
  const [until, setUntil] = useState<number | undefined>(undefined);
  const [now, setNow] = useState(() => nowMs());

  useEffect(
    () =>
      cache.subscribe((event) => {
        if (event.type !== 'updated') return;
        const { action } = event;
        if (action.type === 'failed' && action.error instanceof ApiError && action.error.rateLimited) {
          const seconds = action.error.retryAfterSeconds ?? 1;
          setUntil((current) => Math.max(current ?? 0, nowMs() + seconds * 1000));
        } else if (action.type === 'success') {
          setUntil(undefined);
        }
      }),
    [cache],
  );

  useEffect(() => {
    if (until === undefined) return undefined;
    const timer = window.setInterval(() => setNow(nowMs()), 1000);
    return () => window.clearInterval(timer);
  }, [until]);

  if (until === undefined) return null;
  const seconds = Math.max(0, Math.ceil((until - now) / 1000));
  return (
    <div className="rate-limit" role="status">
      {seconds > 0
        ? `Too many requests from this dashboard for now: trying again in ${seconds} s.`
        : 'Trying again…'}
    </div>
  );
}
