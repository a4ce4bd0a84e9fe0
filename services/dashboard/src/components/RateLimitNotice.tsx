import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { nowMs } from '../api/clock';
import { ApiError } from '../api/http';

/**
 * Says, while a page waits out a spent request budget, how long it waits: the queries retry by
 * themselves after Retry-After (api/retry.ts), so the page fills in without a reload. Gone once
 * every query that waited has its answer (or has given up and shows its error).
 */
export function RateLimitNotice() {
  const cache = useQueryClient().getQueryCache();
  const [until, setUntil] = useState<number | undefined>(undefined);
  const [now, setNow] = useState(() => nowMs());

  useEffect(() => {
    // When each query waiting out a 429 asks again; the notice lasts while any still waits.
    const waiting = new Map<string, number>();
    const show = () => setUntil(waiting.size === 0 ? undefined : Math.max(...waiting.values()));
    return cache.subscribe((event) => {
      const key = event.query.queryHash;
      if (event.type === 'removed') {
        if (waiting.delete(key)) show();
        return;
      }
      if (event.type !== 'updated') return;
      const { action } = event;
      if (action.type === 'failed' && action.error instanceof ApiError && action.error.rateLimited) {
        waiting.set(key, nowMs() + (action.error.retryAfterSeconds ?? 1) * 1000);
        show();
      } else if ((action.type === 'success' || action.type === 'error') && waiting.delete(key)) {
        show();
      }
    });
  }, [cache]);

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
