"""Argument checks and conversions shared by the public classes.

Every check here runs before any network I/O, so a refused call has sent
nothing.  Wrong types raise ``TypeError``; wrong values raise
:class:`~echomq.errors.InvalidArgument` (also a ``ValueError``).
"""

from __future__ import annotations

import datetime
import math
from typing import Optional, Union

from . import _echomq
from .errors import InvalidArgument

Seconds = Union[int, float, datetime.timedelta]
"""A duration: seconds as a number, or a ``datetime.timedelta``."""

Payload = Union[bytes, bytearray, memoryview, str]
"""A job payload: bytes (sent as is) or str (sent as UTF-8)."""

_U32_MAX = 2**32 - 1
I32_MAX = 2**31 - 1
"""The largest C int: the bound of the timeouts the C options keep in ms."""
_I64_MAX = 2**63 - 1


def to_ms(name: str, value: Seconds, *, minimum: int = 1, maximum: Optional[int] = None) -> int:
    """Seconds (number or timedelta) to whole milliseconds in ``[minimum,
    maximum]`` (ms; ``maximum`` None: no bound but the C type's).  A value
    out of range is refused in the caller's unit, seconds."""
    if isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise TypeError(f"{name} must be a number of seconds or a timedelta, not {type(value).__name__}")
    if math.isnan(seconds) or math.isinf(seconds):
        raise InvalidArgument(f"{name} must be finite, got {seconds!r}")
    ms = int(round(seconds * 1000))
    top = _I64_MAX if maximum is None else maximum
    if ms < minimum or ms > top:
        if maximum is None:
            want = f"at least {span(minimum)}"
        else:
            want = f"{span(minimum)} to {span(maximum)}"
        raise InvalidArgument(f"{name} must be {want}, got {value!r} s" if not isinstance(value, datetime.timedelta)
                              else f"{name} must be {want}, got {value}")
    return ms


def epoch_ms(name: str, value: datetime.datetime) -> int:
    """An aware datetime to ms since the Unix epoch (a server time). A naive
    datetime is refused: whose clock it reads is unknown."""
    if not isinstance(value, datetime.datetime):
        raise TypeError(f"{name} must be a datetime, not {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidArgument(
            f"{name} is a naive datetime: give it a tzinfo (for example datetime.timezone.utc)"
        )
    ms = int(round(value.timestamp() * 1000))
    if ms < 1 or ms > _I64_MAX:
        raise InvalidArgument(f"{name} must be after 1970-01-01T00:00:00Z, got {value.isoformat()}")
    return ms
def span(ms: int) -> str:
    """A duration in ms as people say it: "0 s", "0.001 s", "30 s",
    "7 days (604800 s)"."""
    if ms < 60_000 or ms % 1000:
        return f"{ms / 1000:g} s"
    for unit, size in (("day", 86_400_000), ("hour", 3_600_000), ("minute", 60_000)):
        if ms % size == 0:
            n = ms // size
            return f"{n} {unit}{'s' if n != 1 else ''} ({ms // 1000} s)"
    return f"{ms // 1000} s"


def to_count(name: str, value: int, *, minimum: int = 1, maximum: int = _U32_MAX) -> int:
    """A whole number in ``[minimum, maximum]``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum or value > maximum:
        raise InvalidArgument(f"{name} must be in {minimum}..{maximum}, got {value}")
    return value


def to_id(name: str, value: int) -> int:
    """A job id or token (an unsigned 64-bit int)."""
    return to_count(name, value, minimum=0, maximum=2**64 - 1)


def queue_name(name: str) -> str:
    """A checked queue name: 1..128 bytes of [A-Za-z0-9_.-]."""
    if not isinstance(name, str):
        raise TypeError(f"queue name must be a str, not {type(name).__name__}")
    why = _echomq.check_name(_echomq.NAME_QUEUE, name.encode("utf-8", "surrogatepass"))
    if why:
        raise InvalidArgument(why)
    return name


def group_name(name: str) -> bytes:
    """A checked group (lane) name, as UTF-8 bytes for the C API."""
    if not isinstance(name, str):
        raise TypeError(f"group name must be a str, not {type(name).__name__}")
    try:
        raw = name.encode("utf-8")
    except UnicodeEncodeError:
        shown = repr(name[:32]) + ("..." if len(name) > 32 else "")
        raise InvalidArgument(f"group name {shown} is not encodable as UTF-8") from None
    why = _echomq.check_name(_echomq.NAME_GROUP, raw)
    if why:
        raise InvalidArgument(why)  # the core's message: the same in every binding and the CLI
    return raw


def payload_bytes(payload: Payload) -> bytes:
    """A payload as bytes (str is encoded as UTF-8)."""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, (bytearray, memoryview)):
        return bytes(payload)
    raise TypeError(f"payload must be bytes or str, not {type(payload).__name__}")


def reason_bytes(reason: object) -> bytes:
    """A failure reason as UTF-8 without NUL (the C API takes a C string)."""
    text = reason if isinstance(reason, str) else str(reason)
    return text.replace("\0", "\\0").encode("utf-8", "backslashreplace")
