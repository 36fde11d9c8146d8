// summary.mjs — reads each library's phase results (EchoMQ first) and prints
// the side-by-side tables of medians over passes, with EchoMQ's ratio to
// each peer; with --json FILE also writes everything combined.
//   node summary.mjs NAME:PASS:PREFIX ... [--json out.json]
// PREFIX.a.json / .b.json / .d.json are the library's JSON lines for phases a, b and d,
// PREFIX.server.json the server's figures around (a), PREFIX.mem20.json and
// PREFIX.mem100.json (first pass) the memory runs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
let out = '';
const inputs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--json') out = args[++i];
  else inputs.push(args[i]);
}
const line = (f) => (existsSync(f) ? JSON.parse(readFileSync(f, 'utf8').trim().split('\n').pop()) : null);
const runs = inputs.map((spec) => {
  const [name, pass, prefix] = spec.split(':');
  const a = line(`${prefix}.a.json`);
  return {
    library: name, pass: Number(pass), version: a.version, a: a.a, b: line(`${prefix}.b.json`).b,
    d: line(`${prefix}.d.json`)?.d, e: line(`${prefix}.e.json`)?.e, efixed: line(`${prefix}.efixed.json`)?.e,
    server: line(`${prefix}.server.json`), mem20: line(`${prefix}.mem20.json`), mem100: line(`${prefix}.mem100.json`),
  };
});

const median = (xs) => {
  const v = xs.filter((x) => x !== undefined && x !== null).sort((p, q) => p - q);
  const n = v.length;
  if (n === 0) return undefined;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
};
const names = [...new Set(runs.map((r) => r.library))];
const libs = names.map((name) => {
  const rs = runs.filter((r) => r.library === name);
  const at = (get) => median(rs.map(get));
  const workers = rs[0].a.runs.map((r) => r.workers);
  return {
    library: name, version: rs[0].version, passes: rs.length, each: rs,
    enqueue: at((r) => median(r.a.runs.map((x) => x.enqueue_jobs_per_s))),
    drain: Object.fromEntries(workers.map((w, i) => [w, at((r) => r.a.runs[i].drain_jobs_per_s)])),
    deep: at((r) => r.d?.drain_jobs_per_s),
    // The most threads' drain at the faster of the two depths a peer ran
    // (a: one job per worker; d: 16), per pass: each peer at its best
    // against EchoMQ's (a), which drains at d's depth already.
    best: at((r) => Math.max(r.a.runs[r.a.runs.length - 1].drain_jobs_per_s, r.d?.drain_jobs_per_s ?? 0)),
    cpu: at((r) => r.server.cpu_us_per_job),
    commands: at((r) => r.server.commands_per_job),
    scripts: at((r) => r.server.script_calls_per_job),
    mem20: at((r) => r.mem20?.memory_bytes_per_job),
    mem100: at((r) => r.mem100?.memory_bytes_per_job),
    skew: Object.fromEntries(rs[0].b.runs.map((x, i) => [x.workers, {
      median: at((r) => r.b.runs[i].median), max: at((r) => r.b.runs[i].max),
    }])),
  };
});
const [ref, ...peers] = libs;
const workers = Object.keys(ref.drain).map(Number);
const fmt = (x, d = 0) => (x === undefined || x === null ? '-' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));
const pad = (s, n) => String(s).padStart(n);
const ratio = (x, y) => (x && y ? `${(x / y).toFixed(2)}x` : '-');

console.log(`\nmedians of ${ref.passes} pass(es) per library; ratios are EchoMQ / peer`);
// "peer's best": EchoMQ's (a) drain with the most threads, a peer's faster depth.
const best = (l) => (l === ref ? l.drain[workers.at(-1)] : l.best);
const rows = [
  ['server CPU per job (µs)', (l) => fmt(l.cpu, 1), (l) => l.cpu],
  ['commands per job', (l) => fmt(l.commands, 1), (l) => l.commands],
  ['script calls per job', (l) => fmt(l.scripts, 2), (l) => l.scripts],
  ['enqueue (jobs/s)', (l) => fmt(l.enqueue), (l) => l.enqueue],
  ...workers.map((w) => [`drain, ${w} worker${w > 1 ? 's' : ''} (jobs/s)`, (l) => fmt(l.drain[w]), (l) => l.drain[w]]),
  [`drain, ${ref.each[0].d?.workers} workers x ${ref.each[0].d?.depth} in flight (jobs/s)`, (l) => fmt(l.deep), (l) => l.deep],
  [`drain, ${ref.each[0].d?.workers} workers, peer's best (jobs/s)`, (l) => fmt(best(l)), best],
  ['memory per pending job, 20 B (bytes)', (l) => fmt(l.mem20), (l) => l.mem20],
  ['memory per pending job, 100 B (bytes)', (l) => fmt(l.mem100), (l) => l.mem100],
];
let head = `${'(a) ' + fmt(ref.each[0].a.jobs) + ' jobs over ' + ref.each[0].a.groups + ' groups'}`.padEnd(40);
for (const l of libs) head += pad(`${l.library} ${l.version}`, 16);
for (const p of peers) head += pad(`vs ${p.library}`, 12);
console.log(`\n${head}`);
for (const [label, show, val] of rows) {
  let s = label.padEnd(40);
  for (const l of libs) s += pad(show(l), 16);
  for (const p of peers) s += pad(ratio(val(ref), val(p)), 12);
  console.log(s);
}
// How EchoMQ drained (a): its engine's slots per drain and the jobs each
// round trip carried (medians over passes).
const engine = ref.each[0].a.runs.map((x, i) => `${x.workers} thread${x.workers > 1 ? 's' : ''} with ${x.slots ?? '-'} slots ` +
  `(${fmt(median(ref.each.map((r) => r.a.runs[i].drain_jobs_per_round_trip)), 1)} jobs per round trip)`);
console.log(`\n${ref.library} drains through one worker engine: ${engine.join('; ')}; the peers run concurrency 1 per worker in (a), ` +
            `${ref.each[0].d?.depth} in the deep drain; "peer's best" takes, per pass, the faster of a peer's two ` +
            `against ${ref.library}'s (a).`);
const b = ref.each[0].b;
console.log(`\n(b) skewed load: one producer with ${fmt(b.heavy)} jobs, ${b.small} with ${b.small_jobs} each ` +
            `(${fmt(b.jobs)} jobs, interleaved):\n    completion position of each small producer's last job (median / worst)`);
let sh = 'library'.padEnd(40);
for (const w of Object.keys(ref.skew)) sh += pad(`${w} worker${w > 1 ? 's' : ''}`, 18);
console.log(sh);
for (const l of libs) {
  let s = `${l.library} ${l.version}`.padEnd(40);
  for (const w of Object.keys(ref.skew)) s += pad(`${fmt(l.skew[w]?.median)} / ${fmt(l.skew[w]?.max)}`, 18);
  console.log(s);
}
const withE = runs.filter((r) => r.e);
if (withE.length) {
  const e0 = withE[0].e;
  const ms = (x, lb) => (x === undefined ? '-' : `${lb ? '>' : ''}${fmt(x, x < 100 ? 1 : 0)}`);
  console.log(`\n(e) sustained overload (first pass): a heavy tenant kept ${fmt(e0.backlog)} deep, ${e0.quiet} quiet ` +
              `tenants at ${fmt(e0.quiet_rate)} jobs/s in total, ${e0.handler_ms} ms handlers, ${e0.workers} workers;\n` +
              '    quiet waits, enqueue -> handler start, in ms (">": jobs still waiting at the end, a lower bound)');
  console.log(`${'library'.padEnd(40)}${pad('quiet p50', 11)}${pad('quiet p99', 11)}${pad('quiet max', 11)}` +
              `${pad('heavy p50', 11)}${pad('jobs/s', 9)}${pad('EchoMQ p99 / row', 18)}`);
  const refE = withE[0].e;
  const rowsE = [];
  for (const r of withE) {
    rowsE.push([`${r.library} ${r.version}` + (r.e.slots ? ` (${r.e.slots} slots, target ${r.e.target_wait_ms} ms)` : ''), r.e]);
    if (r.efixed) rowsE.push([`${r.library} ${r.version} (${r.efixed.slots} slots, fixed prefetch)`, r.efixed]);
  }
  for (const [label, e] of rowsE) {
    console.log(`${label.padEnd(40)}${pad(ms(e.quiet_p50_ms, e.p50_lower_bound), 11)}${pad(ms(e.quiet_p99_ms, e.p99_lower_bound), 11)}` +
                `${pad(ms(e.quiet_max_ms, e.quiet_unstarted > 0), 11)}${pad(ms(e.heavy_p50_ms), 11)}${pad(fmt(e.jobs_per_s), 9)}` +
                `${pad((e.p99_lower_bound ? '<' : '') + (refE.quiet_p99_ms / e.quiet_p99_ms).toFixed(4) + 'x', 18)}`);
  }
}
if (out) writeFileSync(out, JSON.stringify({ libraries: libs }, null, 2) + '\n');
