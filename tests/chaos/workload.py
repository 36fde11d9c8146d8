"""The Python side of the chaos workload (tests/chaos/README.md), one process
per role, each writing its own history file (one JSON object a line):

    workload.py produce  URL QUEUE HISTORY WHO SEED LANES [--rate R] [--schedules SPECS] [--flows] [--life]
    workload.py engine   URL QUEUE HISTORY WHO SEED LANES
    workload.py claim    URL QUEUE HISTORY WHO SEED LANES [--life]
    workload.py collect  URL QUEUE HISTORY WHO SEED LANES   # the server's event stream
    workload.py sample   URL QUEUE HISTORY WHO SEED LANES   # lane figures, for the limits

SPECS: the run's schedules, "name|lane|every_ms|cron|missed|grace_ms|overlap"
joined by ';' (chaos.py, schedule_plan); a producer upserts one of them,
unchanged, every 2-6 s, as a process at boot would (nothing may change).

--flows: a producer also enqueues flows (a parent, its children, now and
then a grandchild) in one call each, about one enqueue in twenty.

--life: a producer also gives some jobs a time limit or a start deadline
(ttl, now and then dropped when it passes) and cancels some of its own
recent jobs (waiting, delayed or running), a `cancel` line each; a claimer
cancels some of the jobs it holds before it settles them.

Every role runs until SIGTERM or SIGINT (a producer stops, an engine
drains, a claimer settles what it holds, the collector reads what is left).
"""

from __future__ import annotations

import argparse
import random
import signal
import threading
import time
from typing import Any, Callable, Dict, Optional

import echomq

from hist import History, now_ms

stopping = threading.Event()


def _code(e: BaseException) -> int:
    return int(getattr(e, "code", -99) or -99)


def _connect(url: str, timeout: float = 2.0) -> echomq.Client:
    """A client, once the server answers (it may be down while a run starts)."""
    while True:
        try:
            return echomq.connect(url, timeout=timeout, connect_timeout=1.0)
        except echomq.EchoMQError:
            if stopping.wait(0.2):
                raise SystemExit(0)


def delivery(h: History, job: echomq.Job, how: str, t0: float, t1: float) -> None:
    h.record(
        "deliver", how=how, id=job.id, tok=job.token, att=job.attempt, max=job.max_attempts, lane=job.group,
        pl=job.payload.decode("utf-8", "replace"), t0=t0, t1=t1,
        lease_until=int(round((job.lease_until or 0) * 1000)), enq_at=int(round(job.enqueued_at * 1000)),
    )


def upsert_schedule(q: echomq.Queue, h: History, spec: str) -> None:
    """Upserts one of the run's schedules unchanged: `changed` must be 0."""
    name, lane, every_ms, cron, missed, grace_ms, overlap = spec.split("|")
    t0, rc, changed, nxt = now_ms(), 0, -1, 0
    try:
        r = q.schedules.upsert(name, lane=lane, payload=f"tick:{name}",
                               every=int(every_ms) / 1000.0 if int(every_ms) else None, cron=cron or None,
                               missed=missed, grace=int(grace_ms) / 1000.0 if int(grace_ms) else None,
                               overlap=overlap)
        changed = {"unchanged": 0, "created": 1, "updated": 2}.get(r.changed, -2)
        nxt = int(round(r.next_at.timestamp() * 1000)) if r.next_at else 0
    except echomq.EchoMQError as e:
        rc = _code(e)
    h.record("upsert", name=name, rc=rc, changed=changed, next=nxt, t0=t0, t1=now_ms())


def enqueue_flow(q: echomq.Queue, h: History, rng: random.Random, who: str, seq: int, lanes: list) -> None:
    """Enqueues a flow in one call: a parent with 1-4 children on random
    lanes, now and then a grandchild under the first child; each child's
    on_fail is drawn (fail, ignore, continue). One `flow` line (each job's
    name, id and parent) and an `enq` line a job, as a producer's enqueue."""
    f = echomq.Flow()
    rows = [("p", rng.choice(lanes), None)]
    rows += [(f"c{i}", rng.choice(lanes), "p") for i in range(rng.randint(1, 4))]
    if rng.random() < 0.3:
        rows.append(("g0", rng.choice(lanes), "c0"))
    for name, lane, parent in rows:
        f.add(name, lane, f"{who}:f{seq}:{name}", parent=parent,
              on_fail=rng.choice(["fail", "fail", "ignore", "continue"]))
    t0, rc, ids = now_ms(), 0, {}
    try:
        ids = dict(q.enqueue_flow(f))
    except echomq.EchoMQError as e:
        rc = _code(e)
    t1 = now_ms()
    h.record("flow", seq=seq, rc=rc, jobs=[[n, int(ids.get(n, 0)), par or ""] for n, _, par in rows], t0=t0, t1=t1)
    for name, lane, _ in rows:
        h.record("enq", seq=seq, lane=lane, pl=f"{who}:f{seq}:{name}", id=int(ids.get(name, 0)), rc=rc, delay=0,
                 max=0, flow=name, t0=t0, t1=t1)


def life_options(rng: random.Random, delay_ms: int) -> Dict[str, int]:
    """A job's lifecycle options, drawn (ms, the `enq` line's fields): one
    in ten gets a time limit of 50 ms-1 s (the handlers' slow 5 % work
    0.2-1 s, so some attempts run out); one in ten a start deadline 0.1-3 s
    after it is due, a fifth of those dropped rather than dead-lettered."""
    o: Dict[str, int] = {}
    if rng.random() < 0.1:
        o["timeout"] = rng.randint(50, 1000)
    if rng.random() < 0.1:
        o["ttl"] = delay_ms + rng.randint(100, 3000)
        if rng.random() < 0.2:
            o["drop"] = 1
    return o


def cancel_one(q: echomq.Queue, h: History, rng: random.Random, recent: list, remove: Optional[bool] = None) -> None:
    """Cancels one of the producer's recent jobs, whatever it is doing now
    (waiting, delayed, running, finished), now and then removing it. A
    `cancel` line: the id and payload, `remove`, `rc` and `state` (what the
    job was: pending, delayed, leased, dead; "" when refused)."""
    jid, pl = rng.choice(recent)
    if remove is None:
        remove = rng.random() < 0.2
    t0, rc, state = now_ms(), 0, ""
    try:
        state = q.cancel(jid, "chaos", remove=remove)
    except echomq.EchoMQError as e:
        rc = _code(e)
    h.record("cancel", id=jid, pl=pl, remove=int(remove), rc=rc, state=state, t0=t0, t1=now_ms())


def produce(a: argparse.Namespace, h: History, rng: random.Random) -> None:
    q = _connect(a.url).queue(a.queue)
    lanes = a.lanes.split(",")
    specs = [x for x in a.schedules.split(";") if x]
    gap = 1.0 / a.rate
    seq = 0
    recent: list = []  # (id, payload) of the producer's last 20 acknowledged plain enqueues: what it may cancel
    next_upsert = time.monotonic() + 2 + rng.random() * 4
    while not stopping.is_set():
        if specs and time.monotonic() >= next_upsert:
            upsert_schedule(q, h, rng.choice(specs))
            next_upsert = time.monotonic() + 2 + rng.random() * 4
        seq += 1
        if a.flows and rng.random() < 0.05:  # about two flows a second at the default rate
            enqueue_flow(q, h, rng, a.who, seq, lanes)
            continue
        if a.life and recent and rng.random() < 0.04:
            cancel_one(q, h, rng, recent)
        lane = rng.choice(lanes)
        delay = rng.randrange(1500) if rng.random() < 0.1 else 0
        max_att = rng.randint(1, 4) if rng.random() < 0.3 else 0
        life = life_options(rng, delay) if a.life else {}
        pl = f"{a.who}:{seq}"
        t0 = now_ms()
        rc, jid = 0, 0
        try:
            jid = int(q.enqueue(lane, pl, delay=delay / 1000.0 if delay else None, max_attempts=max_att or None,
                                timeout=life.get("timeout", 0) / 1000.0 or None,
                                ttl=life.get("ttl", 0) / 1000.0 or None, expire_drop=bool(life.get("drop"))))
        except echomq.EchoMQError as e:
            rc = _code(e)
        h.record("enq", seq=seq, lane=lane, pl=pl, id=jid, rc=rc, delay=delay, max=max_att, t0=t0, t1=now_ms(), **life)
        if jid:
            recent.append((jid, pl))
            del recent[:-20]
        if rc:
            time.sleep(0.02)
        time.sleep(gap / 2 + rng.random() * gap)


def engine(a: argparse.Namespace, h: History, rng: random.Random) -> None:
    q = _connect(a.url, timeout=3.0).queue(a.queue)
    lock = threading.Lock()

    def handler(job: echomq.Job) -> Any:
        t1 = now_ms()
        delivery(h, job, "engine", t1, t1)
        with lock:
            slow = rng.random() < 0.05  # a stale holder's settlement then meets a holder
            work, p = (0.2 + rng.random() * 0.8) if slow else rng.random() * 0.015, rng.random()
        if job.cancelled.wait(work):  # canceled or out of its time limit: stop, as a cooperating handler does
            h.record("halted", id=job.id, tok=job.token, why=job.halt_reason or "", t1=now_ms())
            job.raise_if_cancelled()
        op = "fail" if p < 0.08 else "discard" if p < 0.10 else "ack"
        h.record("report", op=op, id=job.id, tok=job.token, rc=0, t0=now_ms(), t1=now_ms())
        if op == "fail":
            raise RuntimeError("chaos: a failed attempt")
        if op == "discard":
            raise echomq.DiscardJob("chaos: discarded")
        return f"{a.who}:{job.token}".encode()

    w = echomq.Worker(q, handler, concurrency=3, lease=3.0, wait=1.0, drain_timeout=5.0, on_error=lambda e: None)
    threading.Thread(target=lambda: (stopping.wait(), w.stop()), daemon=True).start()
    while not stopping.is_set():
        try:
            w.run(handle_signals=False)
        except echomq.EchoMQError:
            stopping.wait(0.2)


def claim(a: argparse.Namespace, h: History, rng: random.Random) -> None:
    """Claims by hand (one, a batch, a weighted turn), settles by hand; now
    and then holds a job past its lease, whose settlement must be refused."""
    q = _connect(a.url).queue(a.queue)
    lease = 2.0
    while not stopping.is_set():
        how = rng.choice(["claim", "claim", "batch", "wclaim"])
        t0 = now_ms()
        try:
            if how == "claim":
                got = q.claim(lease)
                jobs = [] if got is None else [got]
            elif how == "batch":
                jobs = q.claim_batch(rng.randint(2, 6), lease, weighted=rng.random() < 0.5)
            else:
                jobs = q.wclaim(lease, max=4)
        except echomq.EchoMQError as e:
            h.record("claim_err", how=how, rc=_code(e), t0=t0, t1=now_ms())
            time.sleep(0.05)
            continue
        t1 = now_ms()
        if not jobs:
            time.sleep(0.02)
            continue
        for job in jobs:
            delivery(h, job, how, t0, t1)
        if rng.random() < 0.1:  # held up to 1 s past the lease, while another holder may have it
            time.sleep(lease + rng.random())
        for job in jobs:
            time.sleep(rng.random() * 0.005)
            if a.life and rng.random() < 0.03:  # canceled while held: it must end canceled whatever is settled
                cancel_one(q, h, rng, [(job.id, job.payload.decode("utf-8", "replace"))], remove=False)
            op = "fail" if rng.random() < 0.08 else "ack"
            s0, rc, outcome = now_ms(), 0, 0
            try:
                if op == "fail":
                    outcome = int(job.fail("chaos: a failed attempt", retry_in=0))
                else:
                    job.ack_result(f"{a.who}:{job.token}")
            except echomq.EchoMQError as e:
                rc = _code(e)
            h.record("settle", op=op, id=job.id, tok=job.token, rc=rc, outcome=outcome, t0=s0, t1=now_ms())


def collect(a: argparse.Namespace, h: History, rng: random.Random) -> None:
    """Copies the queue's event stream (the server's own record, with its
    times) into the history. After an error it reads again from a minute
    back: a restart or a failover may have lost entries and minted new ones
    below the cursor; entries already copied are skipped."""
    q = _connect(a.url).queue(a.queue)
    seen: set = set()
    after = "0"
    while not stopping.is_set():
        try:
            for e in q.events(after, follow=True, block=0.5, count=1000):
                after = e.stream_id
                key = (e.stream_id, e.type, e.id, e.attempt)
                if key in seen:
                    continue
                seen.add(key)
                extra = {k: v if isinstance(v, str) else v.decode("utf-8", "replace") for k, v in e.fields.items()
                         if k not in ("type", "id", "lane", "attempt", "time")}
                h.record("srv", type=e.type, id=e.id, lane=e.lane, att=e.attempt, srv_t=int(e.time * 1000),
                         sid=e.stream_id, x=extra, t1=now_ms())
                if stopping.is_set():
                    break
        except echomq.EchoMQError:
            ms = int(after.split("-")[0]) if after != "0" else 0
            after = "%d-0" % max(ms - 60000, 0) if ms else "0"
            stopping.wait(0.2)


def sample(a: argparse.Namespace, h: History, rng: random.Random) -> None:
    """Samples every lane's (and tenant's) active count against its limit
    and burst, the queue's leased jobs against its queue-wide ceiling, and
    the queue's figures, about ten times a second."""
    q = _connect(a.url).queue(a.queue)
    while not stopping.wait(0.1):
        t0 = now_ms()
        try:
            lanes = [(ln.group, ln.active, ln.limit, ln.burst) for ln in q.lanes()]
            st = q.stats()
            life = q.lifecycle()  # one read: the jobs the queue-wide ceiling counts, and the ceiling
        except echomq.EchoMQError as e:
            h.record("sample_err", rc=_code(e), t0=t0, t1=now_ms())
            continue
        h.record("sample", lanes=lanes, pending=st.pending, leased=st.leased, delayed=st.delayed,
                 dead=st.dead, queue=[life.leased, life.queue_limit], t0=t0, t1=now_ms())


ROLES: Dict[str, Callable[[argparse.Namespace, History, random.Random], None]] = {
    "produce": produce, "engine": engine, "claim": claim, "collect": collect, "sample": sample,
}


def main(argv: Optional[list] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("role", choices=sorted(ROLES))
    for name in ("url", "queue", "history", "who"):
        p.add_argument(name)
    p.add_argument("seed", type=int)
    p.add_argument("lanes")
    p.add_argument("--rate", type=float, default=50.0)
    p.add_argument("--schedules", default="")
    p.add_argument("--flows", action="store_true", help="produce: enqueue flows too")
    p.add_argument("--life", action="store_true", help="produce: time limits, start deadlines and cancels")
    a = p.parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    h = History(a.history, a.who, "py")
    h.record("start", mode=a.role, pid=__import__("os").getpid(), t1=now_ms())
    ROLES[a.role](a, h, random.Random(a.seed))
    h.record("stop", rc=0, t1=now_ms())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
