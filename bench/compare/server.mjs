// server.mjs — the server's own figures around one phase of a library's run:
//   node server.mjs URL snap            -> JSON: CPU seconds, calls per command, used memory
//   node server.mjs URL flush           -> FLUSHALL SYNC (between memory runs)
//   node server.mjs delta PRE POST JOBS -> JSON: server CPU µs, commands and
//                                          script calls per job between two snaps
// INFO cpu is the server process's own user+sys time, so a library's
// client-side work never counts; our INFO calls are left out of the counts.
import { readFileSync } from 'node:fs';

const [a, b, c, d] = process.argv.slice(2);
if (a === 'delta') {
  const pre = JSON.parse(readFileSync(b, 'utf8'));
  const post = JSON.parse(readFileSync(c, 'utf8'));
  const jobs = Number(d);
  let cmds = 0;
  let scripts = 0;
  for (const [cmd, n] of Object.entries(post.calls)) {
    const k = n - (pre.calls[cmd] || 0);
    if (['info', 'ping', 'select', 'hello', 'client', 'auth'].includes(cmd)) continue;
    if (['evalsha', 'evalsha_ro', 'eval', 'eval_ro', 'fcall', 'fcall_ro'].includes(cmd)) scripts += k;
    else cmds += k;
  }
  process.stdout.write(JSON.stringify({
    cpu_us_per_job: ((post.cpu - pre.cpu) * 1e6) / jobs,
    commands_per_job: cmds / jobs,
    script_calls_per_job: scripts / jobs,
    memory_bytes_per_job: (post.used_memory - pre.used_memory) / jobs,
  }) + '\n');
} else {
  const { default: Redis } = await import('ioredis');
  const r = new Redis(a.replace(/^valkey:\/\//, 'redis://'), { maxRetriesPerRequest: 0 });
  try {
    if (b === 'flush') {
      await r.flushall('SYNC');
    } else {
      const field = (text, name) => Number((text.match(new RegExp(`^${name}:([0-9.]+)`, 'm')) || [])[1] || 0);
      const cpu = await r.info('cpu');
      const mem = await r.info('memory');
      const stats = await r.info('commandstats');
      const calls = {};
      for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
      process.stdout.write(JSON.stringify({
        cpu: field(cpu, 'used_cpu_sys') + field(cpu, 'used_cpu_user'),
        used_memory: field(mem, 'used_memory'),
        calls,
      }) + '\n');
    }
  } finally {
    r.disconnect();
  }
}
