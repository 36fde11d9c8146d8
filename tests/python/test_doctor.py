"""Queue.doctor: one line per server check, against the test server."""

import pytest

import echomq


def test_doctor_lines(queue):
    lines = queue.doctor()
    checks = [line.split(" ", 2)[1].rstrip(":") for line in lines]
    assert checks == ["version", "memory", "persistence", "replicas", "cluster", "acl"]
    assert {line.split(" ")[0] for line in lines} <= {"ok", "warn", "fail"}
    assert lines[2].startswith("warn persistence: none")
    assert lines[5].startswith("ok acl: user 'default' may enqueue")
    other = queue.doctor(acl_user="no-such-user-here")
    assert other[5].startswith("warn acl: cannot check the permissions of user 'no-such-user-here'")


def test_doctor_bad_queue_name(client):
    with pytest.raises(echomq.InvalidArgument):
        client.queue("bad{name}").doctor()
