// groupmq.mjs — the compare workloads on groupmq (per-group FIFO on Redis),
// with its defaults: adds issued 1,000 at a time (ioredis pipelines them; there
// is no bulk add), workers as separate Worker instances (one connection each,
// concurrency 1, or the depth of phase d), no-op handler, completed jobs not
// kept.
import { readFileSync } from 'node:fs';
import { Queue, Worker } from 'groupmq';
import Redis from 'ioredis';
import { completions, main } from './workloads.mjs';

const pkg = JSON.parse(readFileSync(new URL('./node_modules/groupmq/package.json', import.meta.url)));

await main('groupmq', pkg.version, async (o) => {
  const conns = [];
  const conn = () => {
    const c = new Redis(o.url, { maxRetriesPerRequest: null });
    conns.push(c);
    return c;
  };
  const queues = [];
  const queue = (name) => {
    const q = new Queue({ redis: conn(), namespace: name, jobTimeoutMs: 30000 });
    queues.push(q);
    return q;
  };
  const producers = new Map();  // one Queue per name for adds (phase e adds one job at a time)
  return {
    async enqueue(name, jobs) {
      if (!producers.has(name)) producers.set(name, queue(name));
      const q = producers.get(name);
      for (let i = 0; i < jobs.length; i += 1000) {
        await Promise.all(jobs.slice(i, i + 1000).map((j) => q.add({ groupId: j.group, data: j.data })));
      }
    },
    async drain(name, workers, n, onDone, depth = 1) {
      const done = completions(n);
      const ws = [];
      for (let i = 0; i < workers; i++) {
        // A groupmq Worker starts running as soon as it is constructed.
        const w = new Worker({ queue: queue(name), concurrency: depth, handler: async () => {} });
        w.on('completed', (job) => {
          onDone(job.data);
          done.tick();
        });
        w.on('error', (e) => console.error('groupmq worker error:', e.message));
        ws.push(w);
      }
      try {
        await done.promise;
      } finally {
        await Promise.all(ws.map((w) => w.close(0)));
      }
    },
    async serve(name, workers, handler) {
      const ws = [];
      for (let i = 0; i < workers; i++) {
        const w = new Worker({ queue: queue(name), concurrency: 1, handler: async (job) => handler(job.data) });
        w.on('error', (e) => console.error('groupmq worker error:', e.message));
        ws.push(w);
      }
      return async () => { await Promise.all(ws.map((w) => w.close(0))); };
    },
    async close() {
      await Promise.all(queues.map((q) => q.close()));
      conns.forEach((c) => c.disconnect());
    },
  };
});
