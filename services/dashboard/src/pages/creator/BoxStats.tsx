import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { Link } from 'react-router';
import { formatAmount, formatPeriod } from '../../api/format';
import { useEarlierBoxStats, useBoxStats, type BoxStatistics } from '../../api/owner';
import { QueryState } from '../../components/Status';
import { ChartFigure } from './ChartFigure';

/** How many months the charts cover, the current one included. */
const MONTHS = 6;
const HEIGHT = 220;
const COLORS = {
  detected: '#b91c1c',
  resolved: '#15803d',
  pending: '#d97706',
  appealed: '#7c3aed',
  revenue: '#1d4ed8',
  fees: '#0e7490',
};

// The statistics name no currency: their amounts are shown with two decimals (formatAmount), no symbol.

/** The current month's figures, in words. */
function ThisMonth({ stats }: { stats: BoxStatistics }) {
  return (
    <dl className="facts month-facts" aria-label={`Figures of ${formatPeriod(stats.period, 'short')}`}>
      <dt>Violations detected</dt>
      <dd>{stats.violations.detected}</dd>
      <dt>Violations resolved</dt>
      <dd>{stats.violations.resolved}</dd>
      <dt>Open now</dt>
      <dd>
        {stats.violations.pending} pending, {stats.violations.appealed} appealed
      </dd>
      <dt>Grace periods</dt>
      <dd>
        {stats.gracePeriods.active} active, {stats.gracePeriods.expired} expired,{' '}
        {stats.gracePeriods.resolved} resolved
      </dd>
      <dt>Licenses</dt>
      <dd>
        {stats.licenses.active} active, {stats.licenses.pending} pending, {stats.licenses.expired} expired (
        {stats.licenses.total} in all)
      </dd>
      <dt>Licensed platforms</dt>
      <dd>{stats.platforms.licensed}</dd>
      {/* The licensees' revenue, not the creator's (issue #32: it read as what the creator earns). */}
      <dt>Licensees' revenue this month</dt>
      <dd>{formatAmount(stats.revenue.monthly)}</dd>
      <dt>Licensees' revenue since the box was created</dt>
      <dd>{formatAmount(stats.revenue.lifetime)}</dd>
      <dt>Owed to you</dt>
      <dd>
        Royalties on that revenue, by month and platform: <Link to="/earnings">see what you are owed</Link>
      </dd>
    </dl>
  );
}

function Charts({ current, months }: { current: BoxStatistics; months: BoxStatistics[] }) {
  const byMonth = months.map((s) => ({
    month: formatPeriod(s.period, 'short'),
    detected: s.violations.detected,
    resolved: s.violations.resolved,
    revenue: s.revenue.monthly,
    fees: s.revenue.byType.fees,
  }));
  const states = [
    { state: 'Pending (in grace period)', count: current.violations.pending },
    { state: 'Appealed (paused)', count: current.violations.appealed },
    { state: 'Grace periods active', count: current.gracePeriods.active },
    { state: 'Grace periods expired', count: current.gracePeriods.expired },
    { state: 'Grace periods resolved', count: current.gracePeriods.resolved },
  ];
  const { byType } = current.revenue;
  const types = [
    { type: 'Subscriptions', amount: byType.subscriptions },
    { type: 'Messages', amount: byType.messages },
    { type: 'Tips', amount: byType.tips },
    { type: 'License fees', amount: byType.fees },
  ];
  const platforms = current.platforms.topPlatforms;
  const thisMonth = formatPeriod(current.period, 'short');
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return (
    <div className="charts">
      <ChartFigure
        title="Violations by month"
        summary={`Over the last ${months.length} months ${sum(byMonth.map((m) => m.detected))} violations were detected and ${sum(byMonth.map((m) => m.resolved))} resolved; in ${thisMonth} ${current.violations.detected} detected and ${current.violations.resolved} resolved.`}
        table={{
          columns: ['Month', 'Detected', 'Resolved'],
          rows: byMonth.map((m) => [m.month, m.detected, m.resolved]),
        }}
      >
        <ResponsiveContainer width="100%" height={HEIGHT}>
          <BarChart data={byMonth} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="month" />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            <Bar dataKey="detected" name="Detected" fill={COLORS.detected} isAnimationActive={false} />
            <Bar dataKey="resolved" name="Resolved" fill={COLORS.resolved} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </ChartFigure>
      <ChartFigure
        title="Violations and grace periods by state, now"
        summary={states.map((s) => `${s.state}: ${s.count}`).join('; ')}
        table={{ columns: ['State', 'Count'], rows: states.map((s) => [s.state, s.count]) }}
      >
        <ResponsiveContainer width="100%" height={HEIGHT}>
          <BarChart data={states} layout="vertical" accessibilityLayer={false} margin={{ left: 24 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" allowDecimals={false} />
            <YAxis type="category" dataKey="state" width={150} />
            <Tooltip />
            <Bar dataKey="count" name="Count" fill={COLORS.pending} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </ChartFigure>
      <ChartFigure
        title="Licensees' revenue by month"
        summary={`Licensees' revenue (the usage they reported plus license fees; your royalties are on the Royalties page) over the last ${months.length} months: ${byMonth.map((m) => `${m.month} ${formatAmount(m.revenue)}`).join(', ')}.`}
        table={{
          columns: ['Month', 'Revenue', 'of which license fees'],
          rows: byMonth.map((m) => [m.month, formatAmount(m.revenue), formatAmount(m.fees)]),
        }}
      >
        <ResponsiveContainer width="100%" height={HEIGHT}>
          <LineChart data={byMonth} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="month" />
            <YAxis />
            <Tooltip />
            <Legend />
            <Line dataKey="revenue" name="Revenue" stroke={COLORS.revenue} isAnimationActive={false} />
            <Line dataKey="fees" name="License fees" stroke={COLORS.fees} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </ChartFigure>
      <ChartFigure
        title={`Licensees' revenue by type, ${thisMonth}`}
        summary={types.map((t) => `${t.type} ${formatAmount(t.amount)}`).join(', ')}
        table={{ columns: ['Type', 'Revenue'], rows: types.map((t) => [t.type, formatAmount(t.amount)]) }}
      >
        <ResponsiveContainer width="100%" height={HEIGHT}>
          <BarChart data={types} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="type" />
            <YAxis />
            <Tooltip />
            <Bar dataKey="amount" name="Revenue" fill={COLORS.revenue} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </ChartFigure>
      <ChartFigure
        title={`Top platforms, ${thisMonth}`}
        summary={
          platforms.length === 0
            ? 'No platform reported revenue or was billed a license fee this month.'
            : platforms.map((p) => `${p.name}: ${formatAmount(p.revenue)} from ${p.users} users`).join('; ')
        }
        table={{
          columns: ['Platform', 'Revenue', 'Users'],
          rows: platforms.map((p) => [p.name, formatAmount(p.revenue), p.users]),
        }}
        empty={
          platforms.length === 0
            ? 'No platform has reported revenue this month. Licensed platforms report usage monthly; approve a license request below to see its platform here.'
            : undefined
        }
      >
        <ResponsiveContainer width="100%" height={HEIGHT}>
          <BarChart data={platforms} layout="vertical" accessibilityLayer={false} margin={{ left: 24 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" />
            <YAxis type="category" dataKey="name" width={120} />
            <Tooltip />
            <Bar dataKey="revenue" name="Revenue" fill={COLORS.revenue} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </ChartFigure>
    </div>
  );
}

/** The box's statistics: this month's figures and charts of the last months (GET /boxes/{id}/stats). */
export function BoxStats({ boxId }: { boxId: string }) {
  const current = useBoxStats(boxId);
  const earlier = useEarlierBoxStats(boxId, current.data?.period, MONTHS);
  const earlierError = earlier.find((q) => q.error !== null)?.error ?? null;
  const earlierPending = earlier.some((q) => q.isPending);
  return (
    <section aria-labelledby="stats-title">
      <div className="section-head">
        <h2 id="stats-title">Statistics</h2>
        <button
          type="button"
          className="secondary"
          disabled={current.isFetching}
          onClick={() => void current.refetch()}
        >
          {current.isRefetching ? 'Refreshing…' : 'Refresh figures'}
        </button>
      </div>
      <QueryState
        isPending={current.isPending || earlierPending}
        error={current.error ?? earlierError}
        what="statistics"
      >
        {() => {
          const stats = current.data;
          if (stats === undefined) return null;
          const months = [...earlier.map((q) => q.data).filter((s) => s !== undefined), stats];
          return (
            <>
              <h3>{formatPeriod(stats.period, 'short')}</h3>
              <ThisMonth stats={stats} />
              {stats.violations.detected === 0 &&
              stats.revenue.lifetime === 0 &&
              stats.licenses.total === 0 ? (
                <p className="empty">
                  Nothing to chart yet: violations appear when a platform reports an avatar that uses this
                  identity, revenue when a licensed platform reports usage or is billed its fee.
                </p>
              ) : null}
              <Charts current={stats} months={months} />
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
