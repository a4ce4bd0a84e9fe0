/**
 * Prints the open-set figures of the face likeness (open-set.ts), then one JSON line; exits 1
 * when a check against 1M enrolled faces expects more than the budget of false matches.
 *
 *   pnpm exec tsc -b bench && node bench/dist/likeness/open-set-run.js
 */
import { LIKENESS_BUDGETS } from '@svc/face-engine';
import { openSetReport } from './open-set';

openSetReport()
  .then((report) => {
    console.log(JSON.stringify({ bench: 'likeness-open-set', ...report }));
    process.exitCode = report.atOneMillion <= LIKENESS_BUDGETS.match * 1.0001 ? 0 : 1;
  })
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
