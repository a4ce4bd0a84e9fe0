import { royaltyRateOf, type Box } from '../../domain/box';
import { amountOf } from '@svc/money';
import type { BoxStatistics, BoxStatsSummary } from '../../domain/box-stats';

// The public forms of a box (docs/spec/service-interface.md, Box) and of its statistics. Money leaves the
// service as a number of currency units; inside it is integer cents.

export function boxListItem(box: Box, stats: BoxStatsSummary) {
  return {
    id: box.id,
    claimId: box.claimId,
    identityName: box.identityName,
    policy: box.policy,
    enforcement: box.enforcement,
    royaltyRate: royaltyRateOf(box),
    status: box.status,
    createdAt: box.createdAt.toISOString(),
    stats: {
      totalViolations: stats.totalViolations,
      activeGracePeriods: stats.activeGracePeriods,
      licensedPlatforms: stats.licensedPlatforms,
      monthlyRevenue: amountOf(stats.monthlyRevenueCents),
    },
  };
}

export function boxDetail(box: Box, stats: BoxStatsSummary) {
  return {
    id: box.id,
    claimId: box.claimId,
    identityName: box.identityName,
    policy: box.policy,
    enforcement: box.enforcement,
    policyConfig: box.policyConfig,
    status: box.status,
    createdAt: box.createdAt.toISOString(),
    updatedAt: box.updatedAt.toISOString(),
    stats: {
      totalViolations: stats.totalViolations,
      resolvedViolations: stats.resolvedViolations,
      activeGracePeriods: stats.activeGracePeriods,
      licensedPlatforms: stats.licensedPlatforms,
      totalLicenses: stats.totalLicenses,
      monthlyRevenue: amountOf(stats.monthlyRevenueCents),
      lifetimeRevenue: amountOf(stats.lifetimeRevenueCents),
    },
    ...(box.logEntry ? { logEntry: { ...box.logEntry } } : {}),
  };
}

export function boxStatistics(stats: BoxStatistics) {
  return {
    boxId: stats.boxId,
    period: stats.period,
    violations: stats.violations,
    gracePeriods: stats.gracePeriods,
    licenses: stats.licenses,
    revenue: {
      monthly: amountOf(stats.revenueCents.monthly),
      lifetime: amountOf(stats.revenueCents.lifetime),
      byType: {
        subscriptions: amountOf(stats.revenueCents.byType.subscriptions),
        messages: amountOf(stats.revenueCents.byType.messages),
        tips: amountOf(stats.revenueCents.byType.tips),
        fees: amountOf(stats.revenueCents.byType.fees),
      },
    },
    platforms: {
      licensed: stats.platforms.licensed,
      topPlatforms: stats.platforms.topPlatforms.map((p) => ({
        name: p.name,
        revenue: amountOf(p.revenueCents),
        users: p.users,
      })),
    },
  };
}
