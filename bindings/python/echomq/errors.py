"""The exception hierarchy of echomq, one class per status code of libechomq.

Every error raised by a call into the library is an :class:`EchoMQError`
whose ``code`` is the C status (``echomq_status``).  Where a built-in
exception means the same thing, the class derives from it too, so
``except ValueError`` or ``except TimeoutError`` work as a Python developer
expects (as in redis-py, ``echomq.ConnectionError`` and ``echomq.TimeoutError``
shadow the built-in names inside this package and also subclass them).
"""

from __future__ import annotations

import builtins
from typing import Dict, Optional, Type

__all__ = [
    "EchoMQError",
    "InvalidArgument",
    "TooLargeError",
    "NotFoundError",
    "StaleLeaseError",
    "LeasedError",
    "LayoutError",
    "ShardsError",
    "FlowError",
    "FullError",
    "ConnectionError",
    "TimeoutError",
    "CanceledError",
    "TLSError",
    "ServerError",
    "RetryableError",
    "BusyError",
    "LoadingError",
    "TryAgainError",
    "ServerOutOfMemoryError",
    "PermissionError",
    "ProtocolError",
    "OutOfMemoryError",
    "InternalError",
    "UnconfirmedWarning",
    "JobPendingError",
    "FinishedError",
    "TimeLimitError",
]


class EchoMQError(Exception):
    """Base class of every echomq error.

    Attributes:
        code: the libechomq status code (a negative ``int``).
        message: the library's message for the failed call.
    """

    code: int = 0

    def __init__(self, message: str = "", code: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class InvalidArgument(EchoMQError, ValueError):
    """A name, number, option or URL was refused before any network I/O
    (ECHOMQ_EINVAL): nothing was sent and nothing changed."""

    code = -1


class TooLargeError(EchoMQError, ValueError):
    """A payload or a batch is over its limit (ECHOMQ_ETOOLARGE); nothing was
    sent."""

    code = -2


class NotFoundError(EchoMQError, LookupError):
    """No such job: already acknowledged, or never existed (ECHOMQ_ENOTFOUND)."""

    code = -3


class StaleLeaseError(EchoMQError):
    """The fencing token is not the job's current attempt, or the job is no
    longer leased: this holder lost the lease and must not settle the job
    (ECHOMQ_ESTALE).  Nothing changed."""

    code = -4


class FullError(EchoMQError):
    """The lane is at its size cap (ECHOMQ_EFULL): the enqueue was refused
    and wrote nothing (a batch: none of its jobs)."""

    code = -5


class LayoutError(EchoMQError):
    """The queue's keys were written with another key layout (an older
    EchoMQ): refused, nothing written (ECHOMQ_ELAYOUT).  See docs/keys.md."""

    code = -6


class LeasedError(EchoMQError):
    """The job is leased by a worker now (ECHOMQ_ELEASED): a delete was
    refused and changed nothing.  Settle it, or let its lease expire, first."""

    code = -7


class ShardsError(EchoMQError):
    """Sharded queues (ECHOMQ_ESHARDS): :meth:`echomq.Client.create_sharded`
    found the queue sharded with another count, or a plain queue that holds
    jobs or lane settings and cannot become sharded.  Nothing changed."""

    code = -8


class FlowError(EchoMQError):
    """The job is part of a flow that has not finished (ECHOMQ_EDEPENDS): a
    parent waits for it, or it waits for its children.  A delete was refused
    and changed nothing; :meth:`echomq.Queue.delete_flow` deletes the whole
    flow."""

    code = -16


class ConnectionError(EchoMQError, builtins.ConnectionError):
    """Cannot connect, or the connection was lost before the command was sent
    (ECHOMQ_ECONN); also raised for a call on a closed client."""

    code = -10


class TimeoutError(EchoMQError, builtins.TimeoutError):
    """No reply in time, or the connection dropped after the command was sent
    (ECHOMQ_ETIMEOUT).  The outcome is UNKNOWN: an enqueue may have happened,
    a claimed job may be leased (it comes back when its lease expires)."""

    code = -11


class CanceledError(EchoMQError):
    """A blocking claim was interrupted by :meth:`echomq.Client.cancel` from
    another thread (ECHOMQ_ECANCELED); nothing was claimed."""

    code = -12


class TLSError(ConnectionError):
    """The TLS session was refused (ECHOMQ_ETLS): the handshake failed, the
    server's certificate is not trusted or not for the host, or the server
    wants a client certificate (none given, or one it does not trust).  The
    message gives OpenSSL's reason; no command ran.  Also an
    :class:`echomq.ConnectionError`."""

    code = -13


class ServerError(EchoMQError):
    """The server answered with an error that has no class of its own:
    READONLY, WRONGTYPE, a redirect loop, ... (ECHOMQ_ESERVER)."""

    code = -20


class RetryableError(ServerError):
    """Base of the server refusals that changed nothing and may succeed if
    the same call is made again a little later: catch this one to back off
    and retry.  Also a :class:`ServerError`."""

    code = -20


class BusyError(RetryableError):
    """The server is busy running a script or function (ECHOMQ_EBUSY)."""

    code = -23


class LoadingError(RetryableError):
    """The server is loading its dataset (ECHOMQ_ELOADING)."""

    code = -24


class TryAgainError(RetryableError):
    """The queue's cluster slot is being migrated (ECHOMQ_ETRYAGAIN)."""

    code = -25


class ServerOutOfMemoryError(RetryableError):
    """The server is out of memory under ``maxmemory``: the write was refused
    and nothing was written (ECHOMQ_EOOM).  Enqueue gets it; claims and
    settling calls keep working, so draining the queue makes room."""

    code = -26


class PermissionError(EchoMQError, builtins.PermissionError):
    """Authentication failed or an ACL denied a command (ECHOMQ_ENOPERM)."""

    code = -21


class ProtocolError(EchoMQError):
    """Unexpected reply shape, usually a version mismatch (ECHOMQ_EPROTO)."""

    code = -22


class OutOfMemoryError(EchoMQError, MemoryError):
    """The library could not allocate memory (ECHOMQ_ENOMEM)."""

    code = -30


class InternalError(EchoMQError):
    """A bug in libechomq (ECHOMQ_EINTERNAL): please report it with the message."""

    code = -31


class FinishedError(EchoMQError):
    """:meth:`Queue.cancel` of a job that has finished (completed, or dead
    for another reason): there is nothing to cancel (C status
    ``ECHOMQ_EFINISHED``); nothing changed."""

    code = -9


class TimeLimitError(EchoMQError):
    """A lease extension refused: the attempt ran past its time limit (C
    status ``ECHOMQ_ETIMELIMIT``).  Stop working on the job: its attempt
    fails "timed out" and is retried by the usual policy."""

    code = -14


class JobPendingError(EchoMQError, builtins.TimeoutError):
    """``Queue.wait`` ran out of time before the job completed or died
    (C status ``ECHOMQ_PENDING`` = 4, not an error in C): the job is still
    pending, leased or delayed; wait again.  Unlike :class:`TimeoutError`
    nothing is unknown."""

    code = 4


_BY_CODE: Dict[int, Type[EchoMQError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        TooLargeError,
        NotFoundError,
        StaleLeaseError,
        LayoutError,
        LeasedError,
        ShardsError,
        FlowError,
        FullError,
        ConnectionError,
        TimeoutError,
        CanceledError,
        TLSError,
        ServerError,
        BusyError,
        LoadingError,
        TryAgainError,
        ServerOutOfMemoryError,
        PermissionError,
        ProtocolError,
        OutOfMemoryError,
        InternalError,
        JobPendingError,
        FinishedError,
        TimeLimitError,
    )
}


class UnconfirmedWarning(UserWarning):
    """A call wrote, but the server did not confirm in time that the write
    reached the replicas or the append-only file the client waits for
    (``connect(..., wait_replicas=N, wait_aof=True)``; C status
    ``ECHOMQ_UNCONFIRMED`` = 2).

    Not an error: the call did what it says and returned its result (the
    job id, the claimed job, the fail outcome), but a failover now could
    lose the write.  Never retry the call because of it (an enqueue would
    run twice).  Warnings show once per place by default; use
    ``warnings.simplefilter("always", echomq.UnconfirmedWarning)`` to see
    every one, or ``"error"`` to raise it (the write still happened, and
    the call's result is then lost to the caller).
    """

    code = 2


def error_class(code: int) -> Type[EchoMQError]:
    """The exception class for a libechomq status code (EchoMQError if unknown)."""
    return _BY_CODE.get(code, EchoMQError)


def _from_status(code: int, message: str) -> EchoMQError:
    """Builds the exception for a failed C call (used by the compiled module)."""
    return error_class(code)(message, code)
