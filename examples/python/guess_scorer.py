#!/usr/bin/env python3
"""The guess-scoring worker of an emoji-guessing game, on fair lanes.

Players guess the round's secret emoji.  Every guess is enqueued on its
player's lane (the lane is the player id, ``PLR...``), and a scorer drains
the queue with ``echomq.Worker``.  One player mashes the keyboard and sends
1,000 guesses at once; the quiet players send a few each, just after.  The
ring serves every lane once per turn, so the quiet players' guesses are
scored at once instead of waiting behind the masher's thousand.

At the end the script prints how long the quiet players waited compared with
the masher, and (with --fifo, the default) how long they would have waited in
one plain FIFO line (the same load, all in one lane).

    python3 examples/python/guess_scorer.py --url valkey://127.0.0.1:6379
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import threading
import time
from collections import defaultdict
from typing import Dict, List, Tuple

import echomq

EMOJI = ["🦊", "🐱", "🐶", "🐼", "🐸", "🦉", "🐙", "🦄", "🐝", "🐢", "🦋", "🐳"]
SECRET = "🦄"
MASHER = "PLR000666"


def score(guess: str) -> int:
    """Exact guess scores 100; a guess from the secret's row of the keyboard 10."""
    if guess == SECRET:
        return 100
    return 10 if abs(EMOJI.index(guess) - EMOJI.index(SECRET)) == 1 else 0


def play(url: str, queue_name: str, *, fair: bool, quiet_players: int, guesses_each: int, mash: int,
         slots: int, work_ms: float) -> Dict[str, List[float]]:
    """Runs one round; returns each player's waits (enqueue to scored), in seconds."""
    waits: Dict[str, List[float]] = defaultdict(list)
    points: Dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    quiet = [f"PLR{100001 + i:06d}" for i in range(quiet_players)]
    expected = mash + quiet_players * guesses_each

    def scorer(job: echomq.Job) -> None:
        guess = json.loads(job.payload)
        time.sleep(work_ms / 1000.0)  # the scoring itself: look-ups, anti-cheat, ...
        done = time.time()
        with lock:
            waits[guess["player"]].append(done - guess["sent"])
            points[guess["player"]] += score(guess["emoji"])

    def lane(player: str) -> str:
        return player if fair else "everyone"

    rng = random.Random(7)
    with echomq.connect(url) as client:
        q = client.queue(queue_name, lease=10)
        worker = echomq.Worker(q, scorer, concurrency=slots, wait=0.5)
        worker.start()
        # The masher: 1,000 guesses in one burst.
        now = time.time()
        q.enqueue_many(
            [(lane(MASHER), json.dumps({"player": MASHER, "emoji": rng.choice(EMOJI), "sent": now}))
             for _ in range(mash)]
        )
        # The quiet players: a few guesses each, one at a time, a moment later.
        for round_ in range(guesses_each):
            for player in quiet:
                q.enqueue(lane(player), json.dumps({"player": player, "emoji": rng.choice(EMOJI),
                                                    "sent": time.time()}))
            time.sleep(0.01)
        while sum(len(w) for w in waits.values()) < expected:
            time.sleep(0.05)
        worker.stop()
        worker.join()
        problems = q.verify()
        if problems:
            raise SystemExit(f"queue check failed: {problems}")
        best = max(quiet, key=lambda p: points[p])
        print(f"  scored {expected} guesses; best quiet player {best} with {points[best]} points, "
              f"the masher {points[MASHER]} points")
    return waits


def summary(waits: Dict[str, List[float]]) -> Tuple[float, float, float, float]:
    quiet = [w for p, ws in waits.items() if p != MASHER for w in ws]
    masher = waits[MASHER]
    return (statistics.median(quiet), max(quiet), statistics.median(masher), max(masher))


def main() -> int:
    ap = argparse.ArgumentParser(description="Score emoji guesses fairly with echomq.")
    ap.add_argument("--url", required=True, help="valkey:// or unix:// URL of the server")
    ap.add_argument("--players", type=int, default=20, help="quiet players (default 20)")
    ap.add_argument("--guesses", type=int, default=3, help="guesses per quiet player (default 3)")
    ap.add_argument("--mash", type=int, default=1000, help="the masher's guesses (default 1000)")
    ap.add_argument("--slots", type=int, default=2, help="scorer slots (default 2)")
    ap.add_argument("--work-ms", type=float, default=2.0, help="scoring time per guess (default 2 ms)")
    ap.add_argument("--no-fifo", action="store_true", help="skip the one-lane FIFO comparison")
    args = ap.parse_args()

    tag = int(time.time() * 1000)
    kw = dict(quiet_players=args.players, guesses_each=args.guesses, mash=args.mash,
              slots=args.slots, work_ms=args.work_ms)
    print(f"Round 1: fair lanes, one lane per player ({args.slots} scorer slots)")
    fair = summary(play(args.url, f"guesses-{tag}", fair=True, **kw))
    rows = [("fair lanes", fair)]
    if not args.no_fifo:
        print("Round 2: the same load in one FIFO lane")
        rows.append(("one FIFO line", summary(play(args.url, f"guesses-fifo-{tag}", fair=False, **kw))))

    print()
    print(f"How long guesses waited to be scored (sent -> scored), {args.players} quiet players "
          f"x {args.guesses} guesses vs {MASHER} x {args.mash}:")
    print(f"  {'':14s} {'quiet median':>13s} {'quiet max':>10s} {'masher median':>14s} {'masher max':>11s}")
    for name, (qm, qx, mm, mx) in rows:
        print(f"  {name:14s} {qm * 1000:10.0f} ms {qx * 1000:7.0f} ms {mm * 1000:11.0f} ms {mx * 1000:8.0f} ms")
    qm, _, mm, _ = fair
    print()
    print(f"With fair lanes the quiet players' median wait was {qm * 1000:.0f} ms against the masher's "
          f"{mm * 1000:.0f} ms: the masher's burst did not delay them.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
