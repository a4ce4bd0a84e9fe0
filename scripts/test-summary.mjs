// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from jest's JSON results.
import { readFileSync } from 'node:fs';

// Several result files (one per jest run) add up to one line.
const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : ['coverage/jest-integration.json', 'coverage/jest-e2e.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  let results;
  try {
    results = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`No jest results at ${file}: ${err.message}`);
    process.exit(1);
  }
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  skipped += results.numPendingTests + results.numTodoTests;
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
