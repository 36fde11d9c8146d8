// summary.mjs — reads the JSON line of each library's passes (EchoMQ's
// first) and prints the side-by-side table of medians over passes; with
// --json FILE also writes everything combined.
//   node summary.mjs echomq.1.json bullmq.1.json ... [--json out.json]
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
let out = '';
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--json') out = args[++i];
  else files.push(args[i]);
}
const runsOf = files.map((f) => JSON.parse(readFileSync(f, 'utf8').trim().split('\n').pop()));

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
};

/** One entry per library (in first-seen order), every figure the median over its runs. */
function aggregate(all) {
  const names = [...new Set(all.map((r) => r.library))];
  return names.map((name) => {
    const rs = all.filter((r) => r.library === name);
    const first = rs[0];
    const a = {
      ...first.a,
      runs: first.a.runs.map((run, i) => ({
        workers: run.workers,
        enqueue_jobs_per_s: median(rs.map((r) => r.a.runs[i].enqueue_jobs_per_s)),
        drain_jobs_per_s: median(rs.map((r) => r.a.runs[i].drain_jobs_per_s)),
      })),
    };
    const b = { ...first.b, median: median(rs.map((r) => r.b.median)), max: median(rs.map((r) => r.b.max)) };
    return { library: name, version: first.version, passes: rs.length, a, b, each: rs };
  });
}
const libs = aggregate(runsOf);
const [ref, ...peers] = libs;
console.log(`\nmedians of ${ref.passes} pass(es) per library`);

const enqueueRate = (lib) => median(lib.a.runs.map((r) => r.enqueue_jobs_per_s));
const fmt = (x) => (x === undefined || x === null ? '-' : Math.round(x).toLocaleString('en-US'));
const pad = (s, n) => String(s).padStart(n);
const drainAt = (lib, w) => lib.a.runs.find((r) => r.workers === w)?.drain_jobs_per_s;
const workers = ref.a.runs.map((r) => r.workers);

console.log(`\n(a) enqueue ${ref.a.jobs.toLocaleString('en-US')} jobs over ${ref.a.groups} groups, then drain (no-op handler)`);
let head = `${'library'.padEnd(16)}${pad('enqueue jobs/s', 16)}`;
for (const w of workers) head += pad(`drain ${w}w jobs/s`, 18);
console.log(head);
for (const lib of libs) {
  let line = `${`${lib.library} ${lib.version}`.padEnd(16)}${pad(fmt(enqueueRate(lib)), 16)}`;
  for (const w of workers) line += pad(fmt(drainAt(lib, w)), 18);
  console.log(line);
}
for (const p of peers) {
  let line = `${`EchoMQ/${p.library}`.padEnd(16)}${pad(`${(enqueueRate(ref) / enqueueRate(p)).toFixed(2)}x`, 16)}`;
  for (const w of workers) line += pad(`${(drainAt(ref, w) / drainAt(p, w)).toFixed(2)}x`, 18);
  console.log(line);
}

const b = ref.b;
console.log(`\n(b) skewed load: one producer with ${fmt(b.heavy)} jobs, ${b.small} with ${b.small_jobs} each ` +
            `(${fmt(b.jobs)} jobs, interleaved), one worker:\n    completion position of each small producer's last job`);
console.log(`${'library'.padEnd(16)}${pad('median', 10)}${pad('worst', 10)}${pad('best', 10)}   of ${fmt(ref.b.jobs)}`);
for (const lib of libs) {
  const best = median(lib.each.map((r) => Math.min(...r.b.small_last_positions)));
  console.log(`${`${lib.library} ${lib.version}`.padEnd(16)}${pad(fmt(lib.b.median), 10)}${pad(fmt(lib.b.max), 10)}${pad(fmt(best), 10)}`);
}
if (out) writeFileSync(out, JSON.stringify({ libraries: libs }, null, 2) + '\n');
