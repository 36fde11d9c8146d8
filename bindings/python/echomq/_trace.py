"""The one switch of tracing, read by every enqueue and every worker.

``hook`` is None (tracing off: an enqueue or a handler pays one attribute
lookup) or the object :func:`echomq.otel.instrument` installs, with

- ``send(queue, lane, options, send, count)``: wraps one enqueue (``count``
  None) or one batch of ``count`` jobs; may add headers to ``options`` and
  returns what ``send(options)`` returns;
- ``process(queue, job, run)``: wraps one handler call, returns
  ``run(job)``.

It lives here, away from :mod:`echomq.otel`, so that the core never imports
OpenTelemetry.
"""

from typing import Any

hook: Any = None
