// bullmq.mjs — the compare workloads on BullMQ (plain FIFO queue): bulk adds
// of 1,000 with addBulk, workers as separate Worker instances (one
// connection each, concurrency 1, or the depth of phase d), no-op processor,
// completed jobs removed.
import { readFileSync } from 'node:fs';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { completions, main } from './workloads.mjs';

const pkg = JSON.parse(readFileSync(new URL('./node_modules/bullmq/package.json', import.meta.url)));

await main('bullmq', pkg.version, async (o) => {
  const conns = [];
  const conn = () => {
    const c = new Redis(o.url, { maxRetriesPerRequest: null });
    conns.push(c);
    return c;
  };
  const queues = new Map();  // one Queue per name (phase e adds one job at a time)
  const jobOpts = { removeOnComplete: true, removeOnFail: true };
  return {
    async enqueue(name, jobs) {
      if (!queues.has(name)) queues.set(name, new Queue(name, { connection: conn(), prefix: o.prefix }));
      const q = queues.get(name);
      for (let i = 0; i < jobs.length; i += 1000) {
        await q.addBulk(jobs.slice(i, i + 1000).map((j) => ({ name: 'job', data: j.data, opts: jobOpts })));
      }
    },
    async drain(name, workers, n, onDone, depth = 1) {
      const done = completions(n);
      const ws = [];
      for (let i = 0; i < workers; i++) {
        const w = new Worker(name, async () => {}, {
          connection: conn(), prefix: o.prefix, concurrency: depth, autorun: false,
        });
        w.on('completed', (job) => {
          onDone(job.data);
          done.tick();
        });
        w.on('error', (e) => console.error('bullmq worker error:', e.message));
        ws.push(w);
      }
      ws.forEach((w) => w.run());
      try {
        await done.promise;
      } finally {
        await Promise.all(ws.map((w) => w.close(true)));
      }
    },
    async serve(name, workers, handler) {
      const ws = [];
      for (let i = 0; i < workers; i++) {
        const w = new Worker(name, async (job) => handler(job.data), {
          connection: conn(), prefix: o.prefix, concurrency: 1,
        });
        w.on('error', (e) => console.error('bullmq worker error:', e.message));
        ws.push(w);
      }
      return async () => { await Promise.all(ws.map((w) => w.close(true))); };
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
      conns.forEach((c) => c.disconnect());
    },
  };
});
