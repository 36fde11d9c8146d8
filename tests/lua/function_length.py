#!/usr/bin/env python3
"""Fails when a Lua function in lua/ (or a script's own body) is longer than
MAX lines, naming each one; prints the longest. The scripts' main paths read
as a list of named steps (docs/architecture.md, "The claim path"): a
function that grows past this is a step that wants splitting.

usage: tests/lua/function_length.py [lua dir] [max lines]
"""
import os
import re
import sys

MAX = 100
OPEN = {'function', 'if', 'for', 'while', 'do', 'repeat'}


def code_lines(text):
    """The text's lines with comments and string contents blanked, so that
    keywords are only found in code."""
    out, i, n = [], 0, len(text)
    buf = []
    while i < n:
        c = text[i]
        if text.startswith('--', i):
            m = re.match(r'--\[(=*)\[', text[i:])
            if m:
                end = text.find(']' + m.group(1) + ']', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
            else:
                end = text.find('\n', i)
                end = n if end < 0 else end
            buf.append(re.sub(r'[^\n]', ' ', text[i:end]))
            i = end
        elif c in '\'"':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            buf.append(c + ' ' * (j - i - 1) + c)
            i = j + 1
        elif text.startswith('[[', i) or re.match(r'\[=+\[', text[i:i + 10]):
            m = re.match(r'\[(=*)\[', text[i:])
            end = text.find(']' + m.group(1) + ']', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            buf.append(re.sub(r'[^\n]', ' ', text[i:end]))
            i = end
        else:
            buf.append(c)
            i += 1
    return ''.join(buf).split('\n')


def functions(path):
    """(name, first line, last line) of each function, and of the file's
    own body (its lines outside every function but the header)."""
    lines = code_lines(open(path, encoding='utf-8').read())
    stack, found = [], []
    for no, line in enumerate(lines, 1):
        for m in re.finditer(r'[A-Za-z_][A-Za-z0-9_]*', line):
            w = m.group(0)
            if w == 'function':
                name = re.search(r'function\s+([A-Za-z0-9_.:]+)', line[m.start():])
                if not name:
                    before = re.search(r'([A-Za-z0-9_.\[\]\']+)\s*=\s*$', line[:m.start()])
                    name = before
                stack.append(('function', name.group(1) if name else '(anonymous)', no))
            elif w in OPEN:
                if w == 'do' and stack and stack[-1][0] == 'loop':
                    stack[-1] = ('block', None, stack[-1][2])  # the `do` of a for or while
                else:
                    stack.append(('loop' if w in ('for', 'while') else 'block', None, no))
            elif w in ('end', 'until'):
                if not stack:
                    raise SystemExit('%s:%d: unbalanced %s' % (path, no, w))
                kind, name, start = stack.pop()
                if kind == 'function':
                    found.append((name, start, no))
    if stack:
        raise SystemExit('%s: %d blocks left open' % (path, len(stack)))
    return found, lines


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'lua')
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else MAX
    rows = []
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith('.lua'):
                continue
            path = os.path.join(dirpath, f)
            found, lines = functions(path)
            for name, a, b in found:
                rows.append((b - a + 1, os.path.relpath(path, os.path.dirname(root)), name, a))
            if os.path.dirname(path) == os.path.normpath(root):
                # A script's own body (a function too when it runs as a
                # Valkey function): its code lines after the header, outside
                # its helpers.
                inside = set()
                for _, a, b in found:
                    inside.update(range(a, b + 1))
                body = [no for no, l in enumerate(lines, 1) if l.strip() and no not in inside]
                header_end = next((no for no, l in enumerate(open(path, encoding='utf-8'), 1) if l.startswith(']]')), 0)
                body = [no for no in body if no > header_end]
                if body:
                    rows.append((body[-1] - body[0] + 1, os.path.relpath(path, os.path.dirname(root)), '(script body)', body[0]))
    rows.sort(reverse=True)
    long = [r for r in rows if r[0] > limit]
    for n, path, name, at in long:
        print('%s:%d: %s is %d lines, over %d: split it into named steps' % (path, at, name, n, limit))
    n, path, name, at = rows[0]
    print('longest: %s (%s:%d), %d lines' % (name, path, at, n))
    return 1 if long else 0


if __name__ == '__main__':
    sys.exit(main())
