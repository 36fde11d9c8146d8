"""The client: one connection to one Valkey server."""

from __future__ import annotations

import warnings
from types import TracebackType
from typing import Any, Callable, List, Optional, Type

from . import _convert, _echomq
from .errors import InvalidArgument, UnconfirmedWarning
from .queue import Queue


class _Confirming:
    """The compiled client of a client that waits for durability: every
    call that wrote but was not confirmed in time warns (UnconfirmedWarning)
    after returning its result.  Clients that do not wait use the compiled
    client directly, at no cost."""

    __slots__ = ("_raw",)

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._raw, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            result = attr(*args, **kwargs)
            why = _echomq.Client.take_unconfirmed()
            if why:
                # stacklevel 3: the caller of the Queue / Job method.
                warnings.warn(UnconfirmedWarning(why), stacklevel=3)
            return result

        return call


class Client:
    """One connection to one Valkey server, used by one thread at a time.

    Calls from several threads on one client are safe but serialised (one
    connection); for parallel work give each thread its own client.  Every
    call that waits on the network releases the GIL.

    Use it as a context manager to close it::

        with echomq.connect("valkey://127.0.0.1:6379") as client:
            q = client.queue("emails")
            q.enqueue("tenant-42", b"hello")

    Args:
        url: ``valkey://[user[:password]@]host[:port][/db]`` (also
            ``redis://``) or ``unix://[user[:password]@]/path?db=N``.  If
            given, the client connects at once; otherwise call
            :meth:`connect`.
        timeout: seconds to wait for a reply to a non-blocking call
            (default 5).
        connect_timeout: seconds to wait for a connection (default 2).
        max_payload: largest payload this client sends, in bytes (default
            1 MiB, at most 64 MiB).
        lease: default lease, in seconds, of the queues made by
            :meth:`queue`.
        wait_replicas: after every call that writes, wait until this many
            replicas have the write (WAIT); default 0 (no wait).
        wait_aof: after every call that writes, wait until the server's
            append-only file has it (WAITAOF; needs ``appendonly yes``).
        wait_timeout: seconds to wait for that confirmation (default 1).
            A write not confirmed in time still happened and returns its
            result, with an :class:`~echomq.UnconfirmedWarning`.

    Raises:
        InvalidArgument: bad URL or options.
        ConnectionError, TimeoutError, PermissionError: cannot connect.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        timeout: _convert.Seconds = 5.0,
        connect_timeout: _convert.Seconds = 2.0,
        max_payload: Optional[int] = None,
        lease: _convert.Seconds = 30.0,
        wait_replicas: int = 0,
        wait_aof: bool = False,
        wait_timeout: _convert.Seconds = 1.0,
    ) -> None:
        command_ms = _convert.to_ms("timeout", timeout, maximum=_convert.I32_MAX)
        connect_ms = _convert.to_ms("connect_timeout", connect_timeout, maximum=_convert.I32_MAX)
        payload_max = 0 if max_payload is None else _convert.to_count(
            "max_payload", max_payload, maximum=_echomq.HARD_MAX_PAYLOAD
        )
        self._lease = _convert.to_ms("lease", lease, maximum=_echomq.LEASE_MAX_MS) / 1000.0
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._max_payload = max_payload
        self._url: Optional[str] = None
        self._wait_replicas = _convert.to_count("wait_replicas", wait_replicas, minimum=0, maximum=100)
        self._wait_aof = bool(wait_aof)
        self._wait_timeout = wait_timeout
        wait_ms = _convert.to_ms("wait_timeout", wait_timeout, maximum=_echomq.WAIT_TIMEOUT_MAX_MS)
        raw = _echomq.Client(connect_ms, command_ms, payload_max, self._wait_replicas, int(self._wait_aof), wait_ms)
        self._raw: Any = _Confirming(raw) if self._wait_replicas or self._wait_aof else raw
        if url is not None:
            self.connect(url)

    def connect(self, url: str) -> "Client":
        """Connect (or reconnect) to ``url``; returns the client itself."""
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, not {type(url).__name__}")
        self._raw.connect(url)
        self._url = url
        return self

    @property
    def url(self) -> Optional[str]:
        """The URL of the last successful :meth:`connect`."""
        return self._url

    @property
    def connected(self) -> bool:
        """True if the client holds a live connection (no I/O)."""
        return bool(self._raw.connected)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return bool(self._raw.closed)

    def ping(self) -> None:
        """Round trip to the server (PING)."""
        self._raw.ping()

    def queue(self, name: str, *, lease: Optional[_convert.Seconds] = None) -> Queue:
        """A :class:`Queue` named ``name`` on this client (no I/O).

        ``lease`` is the queue's default lease in seconds (default: the
        client's).  Raises InvalidArgument for a bad name.
        """
        return Queue(self, name, lease=self._lease if lease is None else lease)

    def create_sharded(self, name: str, shards: int, *, lease: Optional[_convert.Seconds] = None) -> Queue:
        """Create queue ``name`` as a sharded queue over ``shards`` shard
        queues (1..``SHARDS_MAX``), or open it when it exists with that
        count, and return it as a :class:`Queue`.

        A sharded queue is one hot queue spread over the primaries of a
        Valkey Cluster: a lane lives in the shard its group hashes to, and
        claims rotate over the shards.  Every :class:`Queue` call works on
        it by its name, from any client (:meth:`Queue.shards` lists the
        shard queues).  Safe to call from every process.

        Raises:
            InvalidArgument: bad name or count, or a name too long for the
                shard suffix (nothing was sent).
            ShardsError: the queue is sharded with another count, or is a
                plain queue that holds jobs or lane settings; nothing changed.
        """
        q = self.queue(name, lease=lease)
        count = _convert.to_count("shards", shards, maximum=_echomq.SHARDS_MAX)
        self._raw.shards_create(q.name, count)
        return q

    def queues(self) -> List[str]:
        """The queues on the connected server, in byte order (a SCAN walk:
        an operator's call; in a cluster, the queues of the connected
        node).  A queue is listed once it was first enqueued to."""
        return list(self._raw.queues())

    def clone(self) -> "Client":
        """A new client with the same options, connected to the same URL
        (for another thread)."""
        if self._url is None:
            raise InvalidArgument("clone() needs a client that has connected")
        return Client(
            self._url,
            timeout=self._timeout,
            connect_timeout=self._connect_timeout,
            max_payload=self._max_payload,
            lease=self._lease,
            wait_replicas=self._wait_replicas,
            wait_aof=self._wait_aof,
            wait_timeout=self._wait_timeout,
        )

    def cancel(self) -> None:
        """Interrupt a blocking ``claim(wait=...)`` in progress on this
        client, from another thread.

        A claim waiting on the server raises :class:`~echomq.CanceledError`
        at once, and then nothing was claimed; a claim already running its
        script returns its job.  Other calls are not interrupted (they are
        bounded by the client's timeout).  Does nothing when no blocking
        claim is in progress.
        """
        self._raw.cancel()

    def close(self) -> None:
        """Interrupt any call in progress and close the connection.
        Idempotent; later calls raise ConnectionError."""
        self._raw.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("connected" if self.connected else "disconnected")
        return f"Client({self._url!r}, {state})"


def connect(
    url: str,
    *,
    timeout: _convert.Seconds = 5.0,
    connect_timeout: _convert.Seconds = 2.0,
    max_payload: Optional[int] = None,
    lease: _convert.Seconds = 30.0,
    wait_replicas: int = 0,
    wait_aof: bool = False,
    wait_timeout: _convert.Seconds = 1.0,
) -> Client:
    """Open a :class:`Client` connected to ``url`` (see :class:`Client`)."""
    return Client(
        url, timeout=timeout, connect_timeout=connect_timeout, max_payload=max_payload, lease=lease,
        wait_replicas=wait_replicas, wait_aof=wait_aof, wait_timeout=wait_timeout,
    )
