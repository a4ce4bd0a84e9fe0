// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from jest's JSON results.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'coverage/jest-results.json';
let results;
try {
  results = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.error(`No jest results at ${file}: ${err.message}`);
  process.exit(1);
}
const skipped = results.numPendingTests + results.numTodoTests;
console.log(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
