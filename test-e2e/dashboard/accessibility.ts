import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

// Issue #32: every page of the dashboard has 0 serious or critical accessibility violations, as
// axe-core (Deque's rules engine, the one Lighthouse's accessibility audit runs) finds them
// against WCAG 2.1 A and AA. Playwright injects axe through the DevTools protocol, which the
// dashboard's CSP (scripts from its own files only) does not govern.

/** The serious and critical violations axe finds on the page as it is drawn now, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${new URL(page.url()).pathname}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
}
