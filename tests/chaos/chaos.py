#!/usr/bin/env python3
"""A seeded chaos run: servers, a workload in C, Python and Go, a nemesis,
and the checker over the recorded history (tests/chaos/README.md).

    chaos.py run   --seed N [--duration S] [--fsync always|everysec] [--out DIR] ...
    chaos.py check DIR          # the checker alone, over a kept run directory

A run prints the checker's report and exits 1 when it found a violation;
the first line of the report is the one command that runs the same seed
again. Everything the run starts (servers, Sentinel, workers) is stopped by
its PID before it returns, also on an error or Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import check  # noqa: E402
from cluster import Topology  # noqa: E402
from hist import History, now_ms  # noqa: E402
from nemesis import FAULTS, Nemesis  # noqa: E402

QUEUE = "chaos"
LANG_ALL = ("py", "c", "go")


def lane_plan(rng: random.Random) -> Dict[str, dict]:
    """The lanes and their settings: plain lanes, weights, limits, a rate, a
    cap-free mix of tenants (one with a limit of its own)."""
    plan: Dict[str, dict] = {f"l{i}": {} for i in range(4)}
    plan["w3"] = {"weight": 3}
    plan["lim1"] = {"limit": 1}
    plan["lim2"] = {"limit": 2, "weight": 3}
    plan["rate"] = {"rate": (rng.choice([20, 40]), 1.0)}
    plan["ta/a"], plan["ta/b"], plan["tb/a"] = {}, {"limit": 2}, {}
    plan["ta/"] = {"limit": 3}  # the tenant's own row: its limit over its lanes
    plan["tb/"] = {"weight": 2}
    return plan


def schedule_plan(rng: random.Random) -> List[str]:
    """The run's schedules, as "name|lane|every_ms|cron|missed|grace_ms|overlap"
    (the producers in C, Python and Go parse this form and upsert them again,
    unchanged, while the run goes on): every-grids on a plain lane, on the
    limit-1 lane (missed = skip) and on a tenant's lane (overlap = skip), and
    a cron schedule with seconds (every 2 s) on the weighted lane."""
    every = rng.choice([800, 1000, 1200])
    return [f"s_plain|l0|{every}||once|0|fire",
            f"s_lim1|lim1|{rng.choice([1000, 1500])}||skip|{rng.choice([300, 700])}|fire",
            f"s_tenant|ta/a|{rng.choice([600, 900])}||once|0|skip",
            "s_cron|w3|0|*/2 * * * * *|once|0|fire"]


def life_plan(rng: random.Random) -> Dict[str, object]:
    """The run's queue-wide lifecycle settings, drawn: half the runs a
    ceiling of 8-16 leased jobs, a third a queue-wide rate (150 or 250 jobs
    a second, above the producers' 120: it shapes, it does not starve), half
    a lane `burst` of limit 2 with a burst ceiling of 3 or 5, and a quarter a default
    time limit of 2.5 s (the plain claimers that hold a job past its lease
    then run out of it)."""
    plan: Dict[str, object] = {}
    if rng.random() < 0.5:
        plan["queue_limit"] = rng.choice([8, 12, 16])
    if rng.random() < 0.33:
        plan["queue_rate"] = rng.choice([150, 250])
    if rng.random() < 0.5:
        plan["burst"] = rng.choice([3, 5])  # lane `burst`: limit 2, this burst ceiling
    if rng.random() < 0.25:
        plan["default_timeout_ms"] = 2500
    return plan


def setup_queue(url: str, plan: Dict[str, dict], cost_mode: bool, schedules: List[str], run_dir: Path,
                life: Dict[str, object]) -> None:
    import echomq
    from workload import upsert_schedule
    with echomq.connect(url, timeout=5.0) as c:
        q = c.queue(QUEUE)
        q.defaults(max_attempts=3)
        for lane, s in plan.items():
            if "weight" in s:
                q.weight(lane, s["weight"])
            if "burst" in s:
                q.limit_burst(lane, s["limit"], s["burst"])
            elif "limit" in s:
                q.limit(lane, s["limit"])
            if "rate" in s:
                q.rate(lane, s["rate"][0], s["rate"][1])
        q.retain(keep=24 * 3600)
        q.set_events(500000, enqueued=True)
        if cost_mode:
            q.cost_mode(50000)
        h = History(str(run_dir / "setup.jsonl"), "setup", "py")
        for spec in schedules:  # created now: the checker's grid starts at the first tick
            upsert_schedule(q, h, spec)
        if "queue_limit" in life:
            q.queue_limit(life["queue_limit"])
        if "queue_rate" in life:
            q.queue_rate(life["queue_rate"], 1.0, burst=life["queue_rate"] // 5)
        if "default_timeout_ms" in life:
            q.default_timeout(life["default_timeout_ms"] / 1000.0)
        # Feature settings that land later go here (README, "Adding a feature").


class Procs:
    """The workload's processes, by name; every one stopped by its PID."""

    def __init__(self, run_dir: Path, url: str, seed: int, lanes: List[str], build: Path, go_bin: Optional[Path],
                 rate: float, schedules: List[str], flows: bool, life: bool) -> None:
        self.run_dir, self.url, self.seed, self.lanes = run_dir, url, seed, ",".join(lanes)
        self.schedules, self.flows, self.life = ";".join(schedules), flows, life
        self.build, self.go_bin, self.rate = build, go_bin, rate
        (run_dir / "logs").mkdir(exist_ok=True)
        self.procs: Dict[str, subprocess.Popen] = {}
        self.roles: Dict[str, str] = {}
        self.langs: Dict[str, str] = {}
        self.restarts = 0

    def start(self, who: str, lang: str, role: str) -> None:
        hist = str(self.run_dir / f"{who}.jsonl")
        seed = str(self.seed * 1000 + len(self.procs))
        if lang == "py":
            cmd = [sys.executable, str(HERE / "workload.py"), role, self.url, QUEUE, hist, who, seed, self.lanes,
                   "--rate", str(self.rate), "--schedules", self.schedules] + (["--flows"] if self.flows else [])
            cmd += ["--life"] if self.life and role in ("produce", "claim") else []
        elif lang == "c":
            features = ",".join(x for x, on in (("flows", self.flows), ("life", self.life)) if on)
            cmd = [str(self.build / "tests" / "echomq_chaos_client"), role, self.url, QUEUE, hist, who, seed,
                   self.lanes, str(self.rate), self.schedules, features]
        else:
            cmd = [str(self.go_bin), "-mode", role, "-url", self.url, "-queue", QUEUE, "-history", hist, "-who", who,
                   "-seed", seed, "-lanes", self.lanes, "-rate", str(self.rate), "-schedules", self.schedules]
            cmd += ["-flows"] if self.flows else []
            cmd += ["-life"] if self.life and role == "produce" else []
        log = open(self.run_dir / "logs" / f"{who}.log", "a")
        self.procs[who] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.roles[who], self.langs[who] = role, lang

    def kill_worker(self, rng: random.Random) -> Optional[str]:
        live = sorted(w for w, p in self.procs.items() if self.roles[w] in ("engine", "claim") and p.poll() is None)
        if not live:
            return None
        who = rng.choice(live)
        self.procs[who].send_signal(signal.SIGKILL)
        self.procs[who].wait()
        self.restarts += 1
        self.start(f"{who.split('.')[0]}.r{self.restarts}", self.langs[who], self.roles[who])
        return who

    def stop(self, roles: tuple, timeout: float = 15.0) -> None:
        names = [w for w in self.procs if self.roles[w] in roles and self.procs[w].poll() is None]
        for w in names:
            self.procs[w].send_signal(signal.SIGTERM)
        end = time.monotonic() + timeout
        for w in names:
            try:
                self.procs[w].wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.procs[w].kill()
                self.procs[w].wait()

    def kill_all(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()


def build_go(build: Path) -> Path:
    """Builds the Go workload program against the library installed to
    build/prefix (as scripts/test.sh installs it)."""
    prefix = build / "prefix"
    # Installed every time (it copies only what changed): a prefix older
    # than the build would give the Go program an old library.
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], check=True,
                   stdout=subprocess.DEVNULL)
    out = build / "chaos" / "chaos-go"
    out.parent.mkdir(parents=True, exist_ok=True)
    stamp = subprocess.run(f"cat {prefix}/include/echomq/*.h {prefix}/lib/libechomq.a | sha256sum | cut -c1-16",
                           shell=True, check=True, capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, CGO_ENABLED="1", PKG_CONFIG_PATH=f"{prefix}/lib/pkgconfig",
               CGO_CPPFLAGS=f"-DECHOMQ_LIB_STAMP={stamp}", PATH=os.environ.get("PATH", "") + ":/usr/local/go/bin")
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=HERE / "go", env=env, check=True)
    return out


def final_state(url: str, run_dir: Path) -> None:
    """After the drain, before any repair: verify, and where every job the
    history names ended up."""
    import echomq
    ids = check.named_ids(run_dir)
    h = History(str(run_dir / "final.jsonl"), "final", "py")
    with echomq.connect(url, timeout=10.0) as c:
        q = c.queue(QUEUE)
        h.record("verify", lines=q.verify(), t1=now_ms())
        st = q.stats()
        h.record("stats", pending=st.pending, leased=st.leased, delayed=st.delayed, dead=st.dead,
                 enqueued=st.enqueued_total, acked=st.acked_total, t1=now_ms())
        for jid in sorted(ids):
            j = q.job(jid)
            if j is None:
                h.record("final", id=jid, state="absent")
            else:
                h.record("final", id=jid, state=j.state, tok=j.token, att=j.attempt, lane=j.group,
                         enq_at=int(round(j.enqueued_at * 1000)),
                         result=j.result.decode("utf-8", "replace"), err=j.last_error)


def pause_schedules(url: str, schedules: List[str], run_dir: Path) -> None:
    """Pauses the run's schedules before the drain: a tick fired while the
    workers stop would leave its job behind, which is the run's end and not
    a fault. A `pause` line a schedule (stop.jsonl); a pause that fails is
    tried again for up to 10 s (the server may still be coming back)."""
    import echomq
    h = History(str(run_dir / "stop.jsonl"), "stop", "py")
    for spec in schedules:
        name = spec.split("|")[0]
        end, rc = time.monotonic() + 10, -99
        while rc != 0 and time.monotonic() < end:
            t0, rc = now_ms(), 0
            try:
                with echomq.connect(url, timeout=3.0) as c:
                    c.queue(QUEUE).schedules.pause(name)
            except echomq.EchoMQError as e:
                rc = int(getattr(e, "code", -99) or -99)
                time.sleep(0.3)
            h.record("pause", name=name, rc=rc, t0=t0, t1=now_ms())


def drain(url: str, seconds: float) -> bool:
    """Waits until no job is pending, leased or delayed (twice in a row)."""
    import echomq
    end, calm = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        try:
            with echomq.connect(url, timeout=3.0) as c:
                st = c.queue(QUEUE).stats()
            calm = calm + 1 if st.pending + st.leased + st.delayed == 0 else 0
            if calm >= 2:
                return True
        except echomq.EchoMQError:
            calm = 0
        time.sleep(0.5)
    return False


def _out_of_time(*_: object) -> None:
    raise TimeoutError("the run passed its time bound")


def repro_command(a: argparse.Namespace) -> str:
    parts = [f"python3 tests/chaos/chaos.py run --seed {a.seed} --duration {a.duration:g} --fsync {a.fsync}"]
    if a.langs != ",".join(LANG_ALL):
        parts.append(f"--langs {a.langs}")
    if a.faults != ",".join(FAULTS):
        parts.append(f"--faults {a.faults}")
    if a.rate != 40:
        parts.append(f"--rate {a.rate:g}")
    if a.no_schedules:
        parts.append("--no-schedules")
    if a.no_flows:
        parts.append("--no-flows")
    if a.no_life:
        parts.append("--no-life")
    return " ".join(parts)


def run(a: argparse.Namespace) -> int:
    build = Path(a.build).resolve()
    shim = build / "tests" / "emq_clock_shift.so"
    langs = [x for x in a.langs.split(",") if x]
    go_bin = build_go(build) if "go" in langs else None
    run_dir = Path(a.out).resolve() if a.out else Path(tempfile.mkdtemp(prefix=f"emq-chaos-{a.seed}-"))
    if run_dir.exists() and any(run_dir.glob("*.jsonl")):
        raise SystemExit(f"{run_dir} holds a run already")
    run_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    plan = lane_plan(rng)
    cost_mode = rng.random() < 0.3
    schedules = schedule_plan(rng)  # drawn always: --no-schedules keeps the other draws of the seed
    if a.no_schedules:
        schedules = []
    life = life_plan(rng) if not a.no_life else {}
    if "burst" in life:
        plan["burst"] = {"limit": 2, "burst": life["burst"]}
    lanes = [ln for ln in plan if not ln.endswith("/")]
    if "burst" in plan:
        # Drawn four times as often as another lane: it still has work when
        # the others run dry, so it bursts (only then is it above its limit).
        lanes += ["burst"] * 3
    meta = {"seed": a.seed, "duration": a.duration, "fsync": a.fsync, "langs": langs, "faults": a.faults.split(","),
            "plan": plan, "cost_mode": cost_mode, "schedules": schedules, "flows": not a.no_flows, "life": life,
            "repro": repro_command(a), "started": now_ms()}
    topo: Optional[Topology] = None
    procs: Optional[Procs] = None
    # A last bound on the whole run, whatever hangs: the finally below still
    # stops every process by its PID.
    signal.signal(signal.SIGALRM, _out_of_time)
    signal.alarm(int(a.duration + a.drain + 300))
    print(f"chaos: seed {a.seed}, {a.duration:g} s, appendfsync {a.fsync}, run directory {run_dir}", flush=True)
    try:
        topo = Topology(run_dir / "servers", a.fsync, str(shim) if shim.exists() else None)
        meta["url"] = topo.url
        setup_queue(topo.url, plan, cost_mode, schedules, run_dir, life)
        procs = Procs(run_dir, topo.url, a.seed, lanes, build, go_bin, a.rate, schedules, not a.no_flows,
                      not a.no_life)
        for lang in langs:
            procs.start(f"{lang}-prod", lang, "produce")
            procs.start(f"{lang}-eng", lang, "engine")
            if lang in ("py", "c"):
                procs.start(f"{lang}-claim", lang, "claim")
        procs.start("collector", "py", "collect")
        procs.start("sampler", "py", "sample")
        nem = Nemesis(topo, run_dir, a.seed, a.faults.split(","), procs.kill_worker)
        nem.run(a.duration)
        nem.heal()
        procs.stop(("produce",))
        pause_schedules(topo.url, schedules, run_dir)
        drained = drain(topo.url, a.drain)
        meta["drained"] = drained
        procs.stop(("engine", "claim"))
        time.sleep(1.0)  # the collector reads the last events
        procs.stop(("collect", "sample"))
        final_state(topo.url, run_dir)
        meta["faults_injected"] = nem.counts
    finally:
        signal.alarm(0)
        meta["ended"] = now_ms()
        (run_dir / "run.json").write_text(json.dumps(meta, indent=1))
        if procs is not None:
            procs.kill_all()
        if topo is not None:
            topo.stop_all()
    report = check.check_run(run_dir)
    print(report.text())
    (run_dir / "report.txt").write_text(report.text() + "\n")
    (run_dir / "summary.json").write_text(json.dumps(report.summary(), indent=1))
    if not report.violations and not a.keep:
        shutil.rmtree(run_dir / "servers", ignore_errors=True)
    return 1 if report.violations else 0


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="one seeded run, then the checker")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--duration", type=float, default=45.0, help="seconds of faults (default 45)")
    r.add_argument("--drain", type=float, default=90.0, help="longest wait for the queue to empty (default 90)")
    r.add_argument("--fsync", choices=("always", "everysec"), default="always")
    r.add_argument("--langs", default=",".join(LANG_ALL), help="workload languages (default py,c,go)")
    r.add_argument("--faults", default=",".join(FAULTS), help="fault kinds (default: all)")
    r.add_argument("--rate", type=float, default=40.0, help="enqueues per second per producer (default 40)")
    r.add_argument("--no-schedules", action="store_true", help="a queue without schedules")
    r.add_argument("--no-flows", action="store_true", help="producers without flows")
    r.add_argument("--no-life", action="store_true",
                   help="no cancels, time limits, start deadlines, queue-wide limits or bursts")
    r.add_argument("--out", help="run directory (default: a new temporary one)")
    r.add_argument("--keep", action="store_true", help="keep the servers' files of a clean run")
    r.add_argument("--build", default=os.environ.get("ECHOMQ_BUILD_DIR", str(ROOT / "build")))
    c = sub.add_parser("check", help="the checker over a run directory")
    c.add_argument("dir")
    a = p.parse_args(argv)
    if a.cmd == "check":
        report = check.check_run(Path(a.dir))
        print(report.text())
        return 1 if report.violations else 0
    return run(a)


if __name__ == "__main__":
    raise SystemExit(main())
