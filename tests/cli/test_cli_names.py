"""The name rule (docs/keys.md, "Tenants"): one rule, one message, in the
core's validation, which the CLI and every binding reach through the C API
(echomq_check_name), and again in the scripts for the names that hold jobs."""

import re

import pytest

import echomq

from .cli_helpers import REPO, USAGE, cli_path, one_line_error

LONG = "x" * 300

# name -> what the message says (the core's words)
REFUSED = {
    "/x": "has an empty tenant part",
    "/": "has an empty tenant part",
    "a//b": "holds more than one '/'",
    "a/b/": "holds more than one '/'",
    "a/b/c": "holds more than one '/'",
    LONG: "is 300 bytes long, over the 256-byte limit",
    "bad\x01name": "contains a control character",
}


def python_error(url, queue, call, name):
    with echomq.connect(url) as c:
        q = c.queue(queue)
        with pytest.raises(echomq.InvalidArgument) as e:
            call(q, name)
    return e.value.message


@pytest.mark.parametrize("name", list(REFUSED), ids=lambda n: repr(n[:12]))
def test_a_bad_name_gets_the_same_clear_message_from_the_cli_and_python(cli, db, server, queue, name):
    says = REFUSED[name]
    for args, call in ((("enqueue", name, "p"), lambda q, n: q.enqueue(n, b"p")),
                       (("weight", name, "2"), lambda q, n: q.weight(n, 2))):
        p = cli.run(*args)
        assert p.returncode == USAGE, p
        from_cli = one_line_error(p)
        from_python = python_error(server["url"], queue, call, name)
        assert says in from_cli and says in from_python, (from_cli, from_python)
        assert from_python in from_cli  # the CLI adds only its own prefix
        # Never the whole name: at most a cut prefix of it.
        assert len(from_python) < 240 and LONG[:40] not in from_python, from_python
    assert db("KEYS", "*") == []  # refused before any I/O: nothing written


def test_a_long_name_shows_a_cut_prefix_and_its_length(server, queue):
    msg = python_error(server["url"], queue, lambda q, n: q.enqueue(n, b"p"), "é" * 150)
    # 300 bytes of two-byte characters: cut on a character boundary.
    assert "is 300 bytes long" in msg and "'" + "é" * 16 + "...'" in msg, msg


def test_a_tenant_name_is_a_setting_target_but_holds_no_jobs(cli, server, queue):
    cli.ok("weight", "acme/", "2", "--force")
    p = cli.run("enqueue", "acme/", "p")
    assert p.returncode == USAGE and "'acme/' names a tenant, not a lane" in one_line_error(p)
    msg = python_error(server["url"], queue, lambda q, n: q.enqueue(n, b"p"), "acme/")
    assert msg == "'acme/' names a tenant, not a lane (a tenant's lanes are 'acme/<lane>')"
    for good in ("plain", "acme/u1", "{x}:y", "日本/東京"):
        cli.ok("enqueue", good, "p")


def _script(name):
    """The flattened script `name` as the build embeds it."""
    gen = cli_path().resolve().parents[1] / "lua" / "scripts_gen.cpp"
    if not gen.is_file():
        gen = REPO / "build" / "lua" / "scripts_gen.cpp"
    text = gen.read_text()
    m = re.search(r'static const char k_%s\[\] = R"EMQLUA\((.*?)\)EMQLUA"' % name, text, re.S)
    assert m, f"script {name} not in {gen}"
    return m.group(1)


@pytest.mark.parametrize("name", ["/x", "a//b", "a/b/", "acme/"])
def test_the_scripts_refuse_the_same_names(db, queue, name):
    # A client that bypasses the core (its own EVAL) meets the same rule in
    # the scripts that make a lane hold jobs or a cap (cap.lua here).
    src = _script("cap")
    keys = src.split("KEYS: ", 1)[1].split("\n", 1)[0].split()
    prefix = "emq:{%s}:" % queue
    reply = db("EVAL", src, len(keys), *[prefix + k for k in keys], prefix, name, "5")
    assert reply[0] == -1, reply  # EINVAL
    text = reply[1].decode()
    assert ("tenant part" in text or "more than one '/'" in text or "names a tenant" in text), text
    assert db("KEYS", "*") == []
