"""Tasks by name (echomq.App): enqueue a function's run with its arguments,
a worker dispatches on the job's name, the return value comes back from
wait(); an unknown name dies at once; the same under asyncio."""

from __future__ import annotations

import asyncio
import datetime
import time

import pytest

import echomq
import echomq.aio


def _app(make_queue, cls=echomq.App, **kw):
    q = make_queue()  # a queue name of this test, verified at teardown
    return cls(q.client, queue=q.name, **kw), q


def _drain(app, **kw):
    kw.setdefault("concurrency", 2)
    kw.setdefault("idle_timeout", 0.5)
    return app.worker(**kw).run(handle_signals=False)


def test_a_task_runs_by_name_and_its_value_comes_back(make_queue):
    app, q = _app(make_queue)
    seen = []

    @app.task(name="email:send", lane=lambda to, **_: to.split("@")[1], max_attempts=5)
    def send(to, subject="none"):
        seen.append((to, subject))
        return {"to": to, "subject": subject, "n": len(seen)}

    @app.task
    def add(a, b):
        return a + b

    assert add.name == f"{__name__}.test_a_task_runs_by_name_and_its_value_comes_back.<locals>.add"
    assert send("direct@x", subject="call") == {"to": "direct@x", "subject": "call", "n": 1}
    r = send.enqueue("ada@example.com", subject="hi")
    s = add.enqueue(2, 3)
    job = q.job(r.id)
    assert (job.name, job.group, job.max_attempts) == ("email:send", "example.com", 5)
    assert q.job(s.id).group == add.name  # the default lane: the task's name
    stats = _drain(app)
    assert stats.acked == 2
    assert r.wait(timeout=5) == {"to": "ada@example.com", "subject": "hi", "n": 2}
    assert s.wait(timeout=5) == 5


def test_enqueue_in_and_at(make_queue):
    app, q = _app(make_queue)

    @app.task(name="later")
    def later(x):
        return x * 2

    r = later.enqueue_in(60, 1)
    job = q.job(r.id)
    assert job.state == "delayed" and job.due_at - job.enqueued_at == pytest.approx(60, abs=1)
    past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=5)
    now = later.enqueue_at(past, 21)
    assert q.job(now.id).state == "pending"
    _drain(app)
    assert now.wait(timeout=5) == 42
    assert q.job(r.id).state == "delayed"
    q.delete(r.id)


def test_an_unknown_name_dies_at_once_with_the_reason(make_queue):
    app, q = _app(make_queue)

    @app.task(name="known")
    def known():
        return "ok"

    stranger = q.enqueue("g", b"{}", name="nobody:home", max_attempts=5)
    nameless = q.enqueue("g", b"{}", max_attempts=5)
    garbled = q.enqueue("g", b"not json", name="known", max_attempts=5)
    stats = _drain(app)
    assert stats.dead == 3 and stats.retried == 0
    dead = {j.id: j for j in q.dead()}
    assert dead[stranger].last_error == "unknown task name 'nobody:home': no task of this app runs it"
    assert dead[stranger].attempt == 1
    assert dead[nameless].last_error == "the job has no task name: no task of this app runs it"
    assert dead[garbled].last_error.startswith("task known: its arguments do not decode")


def test_a_failing_task_is_retried_then_wait_raises(make_queue):
    app, q = _app(make_queue)
    calls = []

    @app.task(name="flaky", max_attempts=2)
    def flaky():
        calls.append(1)
        raise ValueError("boom")

    r = flaky.enqueue()
    _drain(app, retry_in=0)
    assert len(calls) == 2
    with pytest.raises(echomq.TaskFailed) as e:
        r.wait(timeout=5)
    assert "boom" in str(e.value) and e.value.job.state == "dead"


def test_a_task_timeout_is_the_jobs_time_limit(make_queue):
    app, q = _app(make_queue)

    @app.task(name="slow", max_attempts=1, timeout=0.2)
    def slow():
        time.sleep(0.8)

    r = slow.enqueue()
    _drain(app)
    with pytest.raises(echomq.TaskFailed) as e:
        r.wait(timeout=5)
    assert "timed out" in e.value.job.last_error


def test_a_serializer_of_your_own(make_queue):
    class Reprs:
        def dumps(self, value):
            return repr(value).encode()

        def loads(self, data):
            import ast

            return ast.literal_eval(data.decode())

    app, q = _app(make_queue, serializer=Reprs())

    @app.task(name="tuple")
    def pair(a, b):
        return (a, b)

    r = pair.enqueue(1, b=2)
    assert q.job(r.id).payload == b"{'args': [1], 'kwargs': {'b': 2}}"
    _drain(app)
    assert r.wait(timeout=5) == (1, 2)  # a tuple: JSON would have made a list


def test_registration_errors(make_queue):
    app, _ = _app(make_queue)
    app.task(name="x")(lambda: None)
    with pytest.raises(ValueError):
        app.task(name="x")(lambda: None)
    with pytest.raises(TypeError):
        app.task(lane=3)
    other = app.task(name="elsewhere", queue="another")(lambda: None)
    assert other.queue_name == "another"
    with pytest.raises(ValueError):
        app.worker()  # two queues: the worker must be told which


def test_tasks_under_asyncio(make_queue):
    app, q = _app(make_queue, cls=echomq.aio.App)

    @app.task(name="fetch", lane=lambda tenant, url: tenant)
    async def fetch(tenant, url):
        await asyncio.sleep(0.01)
        return {"tenant": tenant, "url": url}

    async def main():
        rs = [await fetch.enqueue(t, f"/{i}") for i, t in enumerate(["a", "b", "a"])]
        worker = app.worker(concurrency=3, idle_timeout=0.5)
        run = asyncio.create_task(worker.run())
        values = [await r.wait(timeout=10) for r in rs]
        await run
        return rs, values

    rs, values = asyncio.run(main())
    assert values == [{"tenant": "a", "url": "/0"}, {"tenant": "b", "url": "/1"}, {"tenant": "a", "url": "/2"}]
    assert [q.job(r.id).group for r in rs] == ["a", "b", "a"]


def test_a_task_that_returns_none_keeps_no_result(make_queue):
    app, q = _app(make_queue)

    @app.task(name="quiet")
    def quiet():
        return None

    r = quiet.enqueue()
    _drain(app)
    assert r.wait(timeout=5) is None
    assert q.job(r.id).result == b"" and q.job(r.id).state == "completed"
