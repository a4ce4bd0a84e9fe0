import { formatDateTime, formatNumber } from '../../api/format';
import { usePlanUsage, type PlanUsage } from '../../api/platform-activity';
import { QueryState } from '../../components/Status';

type Window = PlanUsage['session']['minute'];

/** One window's use: a meter screen readers announce as "used of limit", and the reset time. */
function Meter({ label, window }: { label: string; window: Window }) {
  const share = window.limit === 0 ? 0 : Math.min(1, window.used / window.limit);
  return (
    <div className="usage">
      <p>
        <strong>{label}</strong>: {formatNumber(window.used)} of {formatNumber(window.limit)} requests (
        {formatNumber(window.limit - window.used)} left, resets {formatDateTime(window.resetAt)})
      </p>
      <meter
        min={0}
        max={window.limit}
        value={window.used}
        low={window.limit * 0.7}
        high={window.limit * 0.9}
        optimum={0}
        aria-label={`${label}: ${window.used} of ${window.limit} used`}
      >
        {Math.round(share * 100)} %
      </meter>
    </div>
  );
}

/** The platform's plan and how much of its limits the current minute and day have used. */
export function Usage() {
  const usage = usePlanUsage();
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Plan and usage</h1>
      <QueryState isPending={usage.isPending} error={usage.error} what="plan and usage">
        {() =>
          usage.data === undefined ? null : (
            <>
              <dl className="facts">
                <dt>Plan</dt>
                <dd>
                  <span className="badge">{usage.data.plan}</span>
                </dd>
                <dt>Limits</dt>
                <dd>
                  {formatNumber(usage.data.limits.perMinute)} requests a minute,{' '}
                  {formatNumber(usage.data.limits.perDay)} a day, per key
                </dd>
              </dl>
              <p className="hint">
                Every API answer carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset for
                the key that made it; over a limit the API answers 429 with Retry-After. The operator changes
                plans.
              </p>
              <h2>Your API keys</h2>
              {usage.data.keys.length === 0 ? (
                <p className="empty">
                  No key in use yet. Create one under API keys; its calls are counted here.
                </p>
              ) : (
                <ul className="cards">
                  {usage.data.keys.map((key) => (
                    <li key={key.keyId} className="card">
                      <h3>
                        <code>{key.keyId}</code>
                      </h3>
                      <Meter label="This minute" window={key.minute} />
                      <Meter label="Today (UTC)" window={key.day} />
                    </li>
                  ))}
                </ul>
              )}
              <h2>This dashboard session</h2>
              <p className="hint">
                The dashboard has a budget of its own: browsing here never spends your keys&apos; limits.
              </p>
              <div className="card">
                <Meter label="This minute" window={usage.data.session.minute} />
                <Meter label="Today (UTC)" window={usage.data.session.day} />
              </div>
            </>
          )
        }
      </QueryState>
    </section>
  );
}
