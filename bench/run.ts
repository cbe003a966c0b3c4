/**
 * `npm run bench [-- <suite>…]`: runs the benchmark suites side by side and prints a markdown
 * report for bench/RESULTS.md.
 */
import { machineLine } from './support/measure.js';
import { runP1 } from './p1-prepare.js';
import { runP8 } from './p8-decode.js';

const SUITES: Record<string, () => Promise<string>> = {
  p1: runP1,
  p8: runP8,
};

const requested = process.argv.slice(2);
const names = requested.length > 0 ? requested : Object.keys(SUITES);
const unknown = names.filter((name) => !Object.hasOwn(SUITES, name));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
  process.exit(2);
}
console.log(`Machine: ${machineLine()}\n`);
for (const name of names) {
  const suite = SUITES[name] as () => Promise<string>;
  console.log(await suite());
  console.log('');
}
