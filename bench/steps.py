#!/usr/bin/env python3
"""Where a job's server time goes, by script and by step.

Runs `echomq_bench compare --phase fixed` (JOBS jobs over 100 lanes,
enqueued 1,000 a call, drained BATCH a call with each batch's acks settled
with the next claim) twice against a throwaway valkey-server:
  1. under MONITOR: every command the scripts call, with its key, counted
     per job and put in a step by its command and the key it names;
  2. alone, after CONFIG RESETSTAT: INFO commandstats gives each command's
     µs per call (a script's own commands are counted, and inside its call).
A command's µs are shared among its calls by their argument counts (a ZADD
of 32 members costs more than one of 1), and a step gets its calls' share;
what a script's calls leave of its own µs is the Lua VM and the call itself
("script body"). The split is an estimate (µs, and a mean over keys);
bench/callgrind.sh gives the exact instruction totals. Each step prints its
share of all scripts' µs, which moves less with the machine's load.
  usage: bench/steps.py [path/to/echomq_bench]   (env: JOBS=20000 BATCH=32,
         COMPARE="more compare args", as bench/callgrind.sh)
"""
import collections
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

BENCH = sys.argv[1] if len(sys.argv) > 1 else "build/bench/echomq_bench"
JOBS = int(os.environ.get("JOBS", "20000"))
BATCH = int(os.environ.get("BATCH", "32"))
COMPARE = os.environ.get("COMPARE", "").split()  # more compare args, e.g. "--queue-limit 1000000"

# (script, command, key role) -> step; the role is the key's name after the
# queue's prefix (a lane's pending set: "pending"). First match wins; None
# as a command or role matches any.
STEPS = [
    ("enqueue", "INCRBY", "seq", "ids"),
    ("enqueue", None, "jobs", "record write"),
    ("enqueue", None, "pending", "lane push"),
    ("take", "ZPOPMIN", "pending", "lane pop"),
    ("take", "ZCARD", "pending", "lane pop"),
    (None, None, "ring", "ring moves"),
    ("take", "ZADD", "leases", "lease"),
    ("take", "HSET", "att", "token"),
    ("take", "TIME", None, "token"),
    ("take", "HMGET", "att", "settlement check"),
    ("take", "ZMSCORE", "leases", "settlement check"),
    ("take", "HDEL", None, "settlement"),
    ("take", "ZREM", "leases", "settlement"),
    ("take", None, "jobs", "record read"),
    ("take", "ZRANGEBYSCORE", None, "recovery scan"),
    ("take", "ZRANGE", None, "recovery scan"),
    (None, None, "stats", "counters"),
    (None, None, "gactive", "counters"),
    (None, None, "glive", "counters"),
    (None, None, "gserved", "counters"),
    (None, None, "lanes", "counters"),
    (None, "HMGET", "config", "flags"),
    (None, "HGET", "config", "flags"),
    (None, "EXISTS", None, "flags"),
    (None, "HSET", "config", "layout mark"),
    (None, "TYPE", None, "type checks"),
    (None, "HEXISTS", None, "lane settings"),
    (None, "SISMEMBER", "paused", "lane settings"),
    (None, "SMISMEMBER", "paused", "lane settings"),
    (None, None, "leases", "marks"),  # the enqueue's set marks (docs/keys.md)
    (None, None, "delayed", "marks"),
    (None, None, "att", "marks"),
]


def step_of(script, cmd, role):
    for s, c, r, step in STEPS:
        if (s is None or s == script) and (c is None or c == cmd) and (r is None or r == role):
            return step
    return f"other ({cmd} {role})"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cli(port, *args):
    return subprocess.run(["valkey-cli", "-p", str(port), *args], capture_output=True, text=True, check=True).stdout


def server(tmp):
    port = free_port()
    proc = subprocess.Popen(["valkey-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", tmp], stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            cli(port, "ping")
            return proc, port
        except subprocess.CalledProcessError:
            time.sleep(0.1)
    raise SystemExit("bench/steps.py: valkey-server did not start")


def run_bench(port):
    subprocess.run([BENCH, "compare", "--url", f"valkey://127.0.0.1:{port}", "--phase", "fixed",
                    "--jobs", str(JOBS), "--batch", str(BATCH), *COMPARE], stdout=subprocess.DEVNULL, check=True)


ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')
PREFIX = "emq:{cmp.fixed}:"


def role(key):
    if not key.startswith(PREFIX):
        return "-"
    name = key[len(PREFIX):]
    if name.startswith("g:") and name.endswith(":pending"):
        return "pending"
    return name


def monitor_counts(port):
    """(script, command, role) -> calls, and -> arguments, over one run under MONITOR."""
    counts, weights = collections.Counter(), collections.Counter()
    mon = subprocess.Popen(["valkey-cli", "-p", str(port), "monitor"], stdout=subprocess.PIPE, text=True)
    mon.stdout.readline()  # OK

    def read():
        script = "-"
        for line in mon.stdout:
            args = ARG.findall(line)
            if not args:
                continue
            cmd = args[0].upper()
            if "lua]" not in line:
                if cmd in ("FCALL", "FCALL_RO", "EVALSHA", "EVALSHA_RO"):
                    # FCALL names: echomq_<script>_<sha prefix>
                    script = re.sub(r"^echomq_|_[0-9a-f]{8,}$", "", args[1]) if cmd.startswith("FCALL") else "sha"
                    counts[(script, "(call)", "-")] += 1
                continue
            key = (script, cmd, role(args[1]) if len(args) > 1 else "-")
            counts[key] += 1
            weights[key] += len(args)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    run_bench(port)
    time.sleep(1)
    mon.terminate()
    t.join(timeout=5)
    return counts, weights


def commandstats(port):
    """command -> (calls, usec)."""
    out = {}
    for line in cli(port, "info", "commandstats").splitlines():
        m = re.match(r"cmdstat_([^:]+):calls=(\d+),usec=(\d+)", line)
        if m:
            out[m.group(1).upper()] = (int(m.group(2)), int(m.group(3)))
    return out


def phases(port):
    """script -> {command: (calls, usec)}: INFO commandstats read once the
    enqueue is done (its `enqueued` counter at JOBS; a drain call or two may
    land before) and again at the end, so the enqueue's and the drain's
    commands are told apart (FCALL counts both scripts on one line)."""
    cli(port, "config", "resetstat")
    run = subprocess.Popen([BENCH, "compare", "--url", f"valkey://127.0.0.1:{port}", "--phase", "fixed",
                            "--jobs", str(JOBS), "--batch", str(BATCH), *COMPARE], stdout=subprocess.DEVNULL)
    while run.poll() is None and cli(port, "hget", PREFIX + "stats", "enqueued").strip() != str(JOBS):
        time.sleep(0.02)
    first = commandstats(port)
    if run.wait() != 0:
        raise SystemExit("bench/steps.py: echomq_bench compare failed")
    last = commandstats(port)
    drain = {c: (n - first.get(c, (0, 0))[0], u - first.get(c, (0, 0))[1]) for c, (n, u) in last.items()}
    return {"enqueue": first, "take": drain}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = server(tmp)
        try:
            counts, weights = monitor_counts(port)
            cli(port, "flushall")
            stats = phases(port)
        finally:
            proc.terminate()
            proc.wait()
    scripts = [s for s in ("enqueue", "take") if counts[(s, "(call)", "-")]]
    total_us, report = 0.0, []
    for script in scripts:
        st = stats[script]
        calls = counts[(script, "(call)", "-")]
        # A command's µs go to its calls by their argument counts (a ZADD of
        # 32 members costs more than one of 1).
        args_of = collections.Counter()
        for (s, cmd, r), w in weights.items():
            if s == script:
                args_of[cmd] += w
        per_arg = {c: (u / args_of[c] if args_of[c] else 0) for c, (n, u) in st.items()}
        rows = collections.defaultdict(lambda: [0, 0.0])
        for (s, cmd, r), n in counts.items():
            if s != script or cmd == "(call)":
                continue
            step = step_of(script, cmd, r)
            rows[step][0] += n
            rows[step][1] += weights[(s, cmd, r)] * per_arg.get(cmd, 0)
        own = sum(st.get(k, (0, 0))[1] for k in ("FCALL", "EVALSHA"))
        inner = sum(v[1] for v in rows.values())
        report.append((script, calls, own, inner, rows))
        total_us += own
    for script, calls, own, inner, rows in report:
        print(f"{script}: {calls / JOBS:.3f} calls per job, {own / JOBS:.2f} µs per job ({own / total_us:.0%})")
        for step, (n, us) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
            print(f"  {step:<24} {n / JOBS:6.2f} calls/job  {us / JOBS:6.2f} µs/job  {us / total_us:4.0%}")
        print(f"  {'script body (Lua, call)':<24} {'':>16}  {(own - inner) / JOBS:6.2f} µs/job  "
              f"{(own - inner) / total_us:4.0%}")
    print(f"all scripts: {total_us / JOBS:.2f} µs per job (JOBS={JOBS} BATCH={BATCH})")


if __name__ == "__main__":
    main()
