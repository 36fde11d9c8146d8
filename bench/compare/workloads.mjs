// workloads.mjs — what the peer scripts share: options, the skewed arrival
// order (the same as echomq_bench compare computes), and the two workloads
// written against a small adapter so BullMQ and groupmq run identical steps.
//
// An adapter has:
//   enqueue(queue, jobs)        jobs: [{group, data}], resolves when all are stored
//   drain(queue, workers, n, onDone, depth) starts `workers` workers, each
//                               running up to `depth` jobs at once (default 1),
//                               resolves when n jobs completed; onDone(data)
//                               runs per completion
//   serve(queue, workers, handler) starts `workers` workers of concurrency 1
//                               running `await handler(data)` per job;
//                               resolves to an async stop()
//   close()

/**
 * Command-line options: --url, --jobs, --groups, --workers 1,8, --heavy,
 * --small, --small-jobs, --prefix, --phase a|b|d|e|mem|all (run.sh measures
 * the server around each phase), --mem-jobs, --payload (bytes, phase mem);
 * phase e: --backlog, --quiet, --quiet-rate, --handler-ms, --warmup,
 * --window, --max-wait (seconds).
 */
export function parseArgs(argv) {
  const o = { url: '', jobs: 50000, groups: 100, workers: [1, 8], heavy: 10000, small: 99,
              smallJobs: 10, prefix: 'cmp', phase: 'all', memJobs: 100000, payload: 100, depth: 16,
              backlog: 20000, quiet: 20, quietRate: 400, handlerMs: 2, warmup: 3, window: 10, maxWait: 30 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`missing value for ${k}`);
    if (k === '--url') o.url = v;
    else if (k === '--jobs') o.jobs = Number(v);
    else if (k === '--groups') o.groups = Number(v);
    else if (k === '--workers') o.workers = v.split(',').map(Number);
    else if (k === '--heavy') o.heavy = Number(v);
    else if (k === '--small') o.small = Number(v);
    else if (k === '--small-jobs') o.smallJobs = Number(v);
    else if (k === '--prefix') o.prefix = v;
    else if (k === '--phase') o.phase = v;
    else if (k === '--mem-jobs') o.memJobs = Number(v);
    else if (k === '--payload') o.payload = Number(v);
    else if (k === '--depth') o.depth = Number(v);
    else if (k === '--backlog') o.backlog = Number(v);
    else if (k === '--quiet') o.quiet = Number(v);
    else if (k === '--quiet-rate') o.quietRate = Number(v);
    else if (k === '--handler-ms') o.handlerMs = Number(v);
    else if (k === '--warmup') o.warmup = Number(v);
    else if (k === '--window') o.window = Number(v);
    else if (k === '--max-wait') o.maxWait = Number(v);
    else throw new Error(`unknown option ${k}`);
  }
  if (!o.url) throw new Error('--url is required');
  // ioredis knows redis:// and rediss:// only; valkey:// is the same protocol.
  o.url = o.url.replace(/^valkey:\/\//, 'redis://');
  return o;
}

/**
 * Arrival order of a skewed load: counts[p] jobs of producer p, each
 * producer's jobs spread evenly (job j of p at (j + 0.5) / counts[p], ties by
 * p). Identical to bench::interleave in the C++ program.
 */
export function interleave(counts) {
  const slots = [];
  counts.forEach((n, p) => {
    for (let j = 0; j < n; j++) slots.push([(j + 0.5) / n, p]);
  });
  slots.sort((a, b) => (a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1]));
  return slots.map((s) => s[1]);
}

function median(xs) {
  const v = [...xs].sort((a, b) => a - b);
  const n = v.length;
  return n === 0 ? 0 : n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

/** (a) enqueue o.jobs jobs over o.groups groups, then drain with each worker count. */
export async function workloadA(adapter, o) {
  const runs = [];
  for (const workers of o.workers) {
    const queue = `${o.prefix}-a-${workers}`;
    const jobs = Array.from({ length: o.jobs }, (_, k) => ({ group: `l${k % o.groups}`, data: {} }));
    let t0 = process.hrtime.bigint();
    await adapter.enqueue(queue, jobs);
    const enq = o.jobs / seconds(t0);
    t0 = process.hrtime.bigint();
    await adapter.drain(queue, workers, o.jobs, () => {});
    runs.push({ workers, enqueue_jobs_per_s: enq, drain_jobs_per_s: o.jobs / seconds(t0) });
  }
  return { jobs: o.jobs, groups: o.groups, runs };
}

/** (b) one heavy producer and many small ones; last positions, per worker count. */
export async function workloadB(adapter, o) {
  const counts = [o.heavy, ...Array(o.small).fill(o.smallJobs)];
  const order = interleave(counts);
  const runs = [];
  for (const workers of o.workers) {
    const queue = `${o.prefix}-b-${workers}`;
    await adapter.enqueue(queue, order.map((p) => ({ group: `p${p}`, data: { p } })));
    const left = [...counts];
    const last = Array(counts.length).fill(0);
    let pos = 0;
    await adapter.drain(queue, workers, order.length, (data) => {
      pos += 1;
      if (--left[data.p] === 0) last[data.p] = pos;
    });
    const small = last.slice(1);
    runs.push({ workers, small_last_positions: small, median: median(small), max: Math.max(...small) });
  }
  return { jobs: order.length, heavy: o.heavy, small: o.small, small_jobs: o.smallJobs, runs };
}

/**
 * Deep drain: workload (a) drained once by the most workers, each running up
 * to o.depth jobs at once (the peers' concurrency; EchoMQ's engine slots).
 */
export async function workloadD(adapter, o) {
  const workers = Math.max(...o.workers);
  const jobs = Array.from({ length: o.jobs }, (_, k) => ({ group: `l${k % o.groups}`, data: {} }));
  const queue = `${o.prefix}-d-${workers}`;
  await adapter.enqueue(queue, jobs);
  const t0 = process.hrtime.bigint();
  await adapter.drain(queue, workers, o.jobs, () => {}, o.depth);
  return { jobs: o.jobs, workers, depth: o.depth, drain_jobs_per_s: o.jobs / seconds(t0) };
}

/** Memory: o.memJobs pending jobs of o.payload bytes over o.groups groups, left in place. */
export async function workloadMem(adapter, o) {
  const data = { d: 'x'.repeat(Math.max(0, o.payload - 8)) };  // JSON '{"d":"…"}' = payload bytes
  const jobs = Array.from({ length: o.memJobs }, (_, k) => ({ group: `l${k % o.groups}`, data }));
  await adapter.enqueue(`${o.prefix}-mem-${o.payload}`, jobs);
  return { jobs: o.memJobs, payload: o.payload };
}

const pct = (xs, q) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.floor(q * v.length))] : NaN;
};

/**
 * (e) Sustained overload: a heavy tenant kept o.backlog deep (it enqueues as
 * fast as the workers drain), o.quiet quiet tenants at o.quietRate jobs/s in
 * total, handlers of o.handlerMs, the most workers of --workers. Reported:
 * the quiet jobs' waits (enqueue -> handler start) of those sent in the
 * window after the warm-up, p50 / p99 / max in ms (a wait not over by
 * o.maxWait counts as that long and is flagged a lower bound), the heavy
 * tenant's p50, and jobs/s started in the window.
 */
export async function workloadE(adapter, o) {
  const queue = `${o.prefix}-e`;
  const now = () => performance.timeOrigin + performance.now();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const workers = Math.max(...o.workers);
  const recs = [];
  let heavyStarted = 0;
  const heavy = (k) => Array.from({ length: k }, () => ({ group: 'heavy', data: { p: 0, t: now() } }));
  await adapter.enqueue(queue, heavy(o.backlog));
  let enqueued = o.backlog;
  let firstStart;
  const first = new Promise((r) => { firstStart = r; });
  const stopWorkers = await adapter.serve(queue, workers, async (data) => {
    recs.push([data.p, data.t, now()]);
    if (data.p === 0) heavyStarted += 1;
    firstStart();
    await sleep(o.handlerMs);
  });
  await first;  // worker start-up left out
  const wStart = now() + o.warmup * 1000;
  const wEnd = wStart + o.window * 1000;
  const sent = new Set();
  let stop = false;
  const quiet = (async () => {  // paced by the clock: a late send is caught up
    const t0 = now();
    for (let k = 0; !stop; k++) {
      const due = t0 + (k * 1000) / o.quietRate;
      if (due > now()) await sleep(due - now());
      const t = now();
      await adapter.enqueue(queue, [{ group: `q${k % o.quiet}`, data: { p: 1 + (k % o.quiet), t } }]);
      if (t >= wStart && t < wEnd) sent.add(t);
    }
  })();
  const depths = [];
  const deadline = wEnd + o.maxWait * 1000;
  const quietStarted = () => recs.filter((r) => r[0] > 0 && sent.has(r[1])).length;
  for (;;) {
    await sleep(10);
    const pending = enqueued - heavyStarted;
    const t = now();
    if (t >= wStart && t < wEnd) depths.push(pending);
    if (pending < o.backlog) {  // the heavy tenant sends as fast as it is drained
      const k = o.backlog - pending;
      enqueued += k;
      await adapter.enqueue(queue, heavy(k));
    }
    if (t >= wEnd) {
      stop = true;
      if (quietStarted() >= sent.size || t >= deadline) break;
    }
  }
  await quiet;
  await stopWorkers();
  const end = now();
  const waited = new Map(recs.filter((r) => r[0] > 0 && sent.has(r[1])).map((r) => [r[1], r[2] - r[1]]));
  const censored = [...sent].filter((t) => !waited.has(t)).map((t) => end - t);
  const qw = [...waited.values(), ...censored];
  const bound = censored.length ? Math.min(...censored) : Infinity;
  const inWindow = recs.filter((r) => r[2] >= wStart && r[2] < wEnd);
  return {
    workers, backlog: o.backlog, quiet: o.quiet, quiet_rate: o.quietRate, handler_ms: o.handlerMs,
    quiet_p50_ms: pct(qw, 0.5), quiet_p99_ms: pct(qw, 0.99), quiet_max_ms: pct(qw, 1),
    quiet_jobs: sent.size, quiet_unstarted: censored.length,
    p50_lower_bound: pct(qw, 0.5) >= bound, p99_lower_bound: pct(qw, 0.99) >= bound,
    heavy_p50_ms: pct(inWindow.filter((r) => r[0] === 0).map((r) => r[2] - r[1]), 0.5),
    jobs_per_s: inWindow.length / o.window,
    backlog_mean: depths.length ? depths.reduce((a, b) => a + b, 0) / depths.length : 0,
  };
}

/** Fails fast (instead of retrying forever) when the server is not there. */
async function checkServer(url) {
  const { default: Redis } = await import('ioredis');
  const c = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.ping();
  } catch (e) {
    throw new Error(`cannot reach ${url}: ${e.message}`);
  } finally {
    c.disconnect();
  }
}

/** Runs both workloads and prints the JSON line run.sh collects. */
export async function main(library, version, makeAdapter) {
  const o = parseArgs(process.argv.slice(2));
  await checkServer(o.url);
  const adapter = await makeAdapter(o);
  try {
    const out = { library, version };
    if (o.phase === 'all' || o.phase === 'a') out.a = await workloadA(adapter, o);
    if (o.phase === 'all' || o.phase === 'b') out.b = await workloadB(adapter, o);
    if (o.phase === 'd') out.d = await workloadD(adapter, o);
    if (o.phase === 'e') out.e = await workloadE(adapter, o);
    if (o.phase === 'mem') out.mem = await workloadMem(adapter, o);
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    await adapter.close();
  }
}

/**
 * Counts completions: tick() per finished job; `promise` resolves at n and
 * rejects if nothing finished for idleMs (a stuck drain fails, not hangs).
 */
export function completions(n, idleMs = 30000) {
  let done = 0;
  let last = Date.now();
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const timer = setInterval(() => {
    if (Date.now() - last > idleMs) {
      clearInterval(timer);
      reject(new Error(`no job finished for ${idleMs} ms (${done} of ${n} done)`));
    }
  }, 1000);
  if (n === 0) {
    clearInterval(timer);
    resolve();
  }
  return {
    promise,
    tick() {
      done += 1;
      last = Date.now();
      if (done === n) {
        clearInterval(timer);
        resolve();
      }
    },
  };
}
