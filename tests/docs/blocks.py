"""The code blocks of a Markdown file and how each one is checked
(tests/docs/README.md gives the convention).

A block is a fenced block (```lang ... ```, possibly indented in a list).
An HTML comment right above its fence (blank lines between are allowed),
invisible on a rendered page, says how it is checked:

    <!-- doc-test: MODE [key=value ...]
    before:
        hidden lines run before the block
    after:
        hidden lines run after it
    -->

Without a comment, a python, go or c block is run; any other block must say
how it is checked, so a new block can never go unchecked.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

MODES = ("run", "compile", "session", "covered-by", "check-only")
RUN_BY_DEFAULT = ("python", "go", "c")

FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[A-Za-z0-9_+-]*)\s*$")
MARKER = re.compile(r"<!--\s*doc-test:\s*(?P<head>[^\n]*?)\s*(?P<close>-->)?\s*$")


class DocTestError(Exception):
    """A block or marker the runner cannot take (a test failure)."""


@dataclass
class Block:
    path: Path
    shown: str  # the path as the test names it (relative to the repository)
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    mode: str
    options: Dict[str, str] = field(default_factory=dict)
    args: List[str] = field(default_factory=list)  # covered-by paths, check-only reason words
    before: str = ""
    after: str = ""

    @property
    def name(self) -> str:
        return f"{self.shown}:{self.line}:{self.lang or 'text'}"


def _dedent(lines: List[str], indent: str) -> str:
    out = []
    for line in lines:
        out.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
    return "\n".join(out) + ("\n" if out else "")


def _parse_marker(head: str, body: List[str], where: str) -> Dict[str, object]:
    words = shlex.split(head)
    if not words or words[0] not in MODES:
        raise DocTestError(f"{where}: doc-test mode must be one of {', '.join(MODES)}, got {head!r}")
    mode, rest = words[0], words[1:]
    options = {}
    args = []
    for w in rest:
        if "=" in w and mode not in ("check-only",):
            k, v = w.split("=", 1)
            options[k] = v
        else:
            args.append(w)
    if mode == "covered-by" and not args:
        raise DocTestError(f"{where}: covered-by names the files that check the block")
    if mode == "check-only" and not args:
        raise DocTestError(f"{where}: check-only says why the block is not run")
    sections: Dict[str, List[str]] = {"before": [], "after": []}
    current: Optional[str] = None
    for line in body:
        if line.strip() in ("before:", "after:"):
            current = line.strip()[:-1]
            continue
        if current is None:
            if line.strip():
                raise DocTestError(f"{where}: a doc-test comment holds only before: and after: sections")
            continue
        sections[current].append(line[4:] if line.startswith("    ") else line.strip())
    return {"mode": mode, "options": options, "args": args,
            "before": "\n".join(sections["before"]).rstrip() + ("\n" if sections["before"] else ""),
            "after": "\n".join(sections["after"]).rstrip() + ("\n" if sections["after"] else "")}


def blocks(path: Path, shown: str) -> List[Block]:
    lines = path.read_text().splitlines()
    out: List[Block] = []
    pending: Optional[Dict[str, object]] = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.search(line)
        if m:
            where = f"{shown}:{i + 1}"
            body = []
            if not m.group("close"):
                i += 1
                while i < len(lines) and "-->" not in lines[i]:
                    body.append(lines[i])
                    i += 1
                if i >= len(lines):
                    raise DocTestError(f"{where}: doc-test comment never closed")
            pending = _parse_marker(m.group("head"), body, where)
            pending["where"] = where
            i += 1
            continue
        f = FENCE.match(line)
        if f:
            indent, lang = f.group("indent"), f.group("lang")
            start = i
            i += 1
            code = []
            while i < len(lines) and not re.match(r"^[ \t]*```\s*$", lines[i]):
                code.append(lines[i])
                i += 1
            if i >= len(lines):
                raise DocTestError(f"{shown}:{start + 1}: code block never closed")
            spec = pending or {}
            if not spec and lang not in RUN_BY_DEFAULT:
                raise DocTestError(
                    f"{shown}:{start + 1}: a {lang or 'plain'} block needs a doc-test comment saying how it is "
                    f"checked (tests/docs/README.md)")
            out.append(Block(path=path, shown=shown, line=start + 1, lang=lang, code=_dedent(code, indent),
                             mode=str(spec.get("mode", "run")), options=dict(spec.get("options", {})),
                             args=list(spec.get("args", [])), before=str(spec.get("before", "")),
                             after=str(spec.get("after", ""))))
            pending = None
            i += 1
            continue
        if pending is not None and line.strip():
            raise DocTestError(f"{pending['where']}: a doc-test comment must come right above a code block")
        i += 1
    if pending is not None:
        raise DocTestError(f"{pending['where']}: a doc-test comment with no code block after it")
    return out
