"""The one retry policy of every GitHub call, and the clock it waits on.

* The transport (urllib3 ``Retry``) repeats idempotent methods (GET, HEAD, PATCH, PUT, DELETE)
  on 500/502/503/504 and on a read timeout, POST never (it may have landed), and a 429 whose
  ``retry-after`` is at most :data:`MAX_RETRY_AFTER`; a longer one goes back to the client.
* The client (roofbot.adapters.github.session) turns a rate limit into
  :class:`GitHubRateLimited` with the wait GitHub asks for, and sends nothing more until that
  wait has passed: the calls after it fail at once, without a request.
* :func:`repeat` repeats a whole call that is safe to repeat (a status, an upsert), waiting on
  the injected :class:`Clock`: tests never sleep for real.

How long a rate limit lasts (GitHub's documentation, "rate limits for the REST API"):
``retry-after`` when GitHub sends it; else, with ``x-ratelimit-remaining: 0`` (a primary
limit), until ``x-ratelimit-reset``; else (a secondary limit without ``retry-after``) at least
a minute, doubled at each further limit in a row."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol, TypeVar

from roofbot.adapters.github.errors import GitHubError, GitHubRateLimited, GitHubUnavailable
from roofbot.adapters.github.models import GitHubSettings

if TYPE_CHECKING:
    from types import TracebackType
    from typing import Self

    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import BaseHTTPResponse
    from urllib3.util.retry import Retry

#: A Retry-After longer than this is not slept through by the transport: the 429 goes back
#: and surfaces as :class:`GitHubRateLimited`, for the client to hold.
MAX_RETRY_AFTER: Final = 10.0

_RETRY_STATUSES: Final = (500, 502, 503, 504)
_IDEMPOTENT: Final = frozenset({"GET", "HEAD", "PATCH", "PUT", "DELETE"})
#: A secondary rate limit without ``retry-after``: the first wait, in seconds.
SECONDARY_WAIT: Final = 60.0


class Clock(Protocol):
    """Wall-clock seconds since the epoch (GitHub's reset times are epochs), and a sleep."""

    def time(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def time(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


SYSTEM_CLOCK: Final = SystemClock()


@functools.cache
def retry_class() -> type[Retry]:
    from urllib3.util.retry import Retry

    class BoundedRetry(Retry):
        """urllib3's Retry, except that a Retry-After above MAX_RETRY_AFTER ends the retries
        (the response goes back to the caller) instead of sleeping through it."""

        def increment(
            self,
            method: str | None = None,
            url: str | None = None,
            response: BaseHTTPResponse | None = None,
            error: Exception | None = None,
            _pool: ConnectionPool | None = None,
            _stacktrace: TracebackType | None = None,
        ) -> Self:
            if response is not None:
                wait = self.get_retry_after(response)
                if wait is not None and wait > MAX_RETRY_AFTER:
                    exhausted = self.new(total=0)
                    return Retry.increment(
                        exhausted, method, url, response, error, _pool, _stacktrace
                    )
            return super().increment(method, url, response, error, _pool, _stacktrace)

    return BoundedRetry


def retry_policy(settings: GitHubSettings) -> Retry:
    return retry_class()(
        total=settings.retries,
        read=min(settings.retries, 1),  # a GET that timed out is tried once more, not 3 times
        backoff_factor=settings.backoff_factor,
        status_forcelist=_RETRY_STATUSES,
        allowed_methods=_IDEMPOTENT,  # never POST: it may have succeeded
        respect_retry_after_header=True,
        raise_on_status=False,  # hand the last 5xx to PyGithub, which raises with its body
    )


def limit_wait(
    retry_after: float | None, reset_at: float | None, primary: bool, now: float, in_a_row: int
) -> float:
    """Seconds until GitHub takes requests again (see the module docstring); `in_a_row`:
    the secondary limits met one after the other before this one."""
    if retry_after is not None:
        return max(retry_after, 0.0)
    if primary and reset_at is not None:
        return round(max(reset_at - now, 0.0) + 1.0, 1)  # a second for the clocks
    return SECONDARY_WAIT * float(2 ** min(in_a_row, 6))


# ------------------------------------------------------------- a whole call, repeated

T = TypeVar("T")
#: Seconds a call is held back for GitHub to recover (a short rate limit, a 5xx) at most,
#: unless the caller insists (the final status: a rate limit is waited out).
MAX_WAIT: Final = 10.0


def wait_for(error: Exception, attempt: int, *, insist: bool = False) -> float | None:
    """Seconds to wait before repeating a call that failed with `error`, or None: not worth
    repeating (a 4xx, or a rate limit longer than roofbot waits unless it insists)."""
    if isinstance(error, GitHubRateLimited):
        return error.wait if insist or error.wait <= MAX_WAIT else None
    if isinstance(error, GitHubUnavailable):
        return min(float(2**attempt), MAX_WAIT)
    return None


def repeat(
    call: Callable[[], T],
    *,
    attempts: int,
    clock: Clock = SYSTEM_CLOCK,
    wait_bound: float = float("inf"),
    insist: bool = False,
    on_retry: Callable[[GitHubError, float], None] = lambda error, wait: None,
    on_give_up: Callable[[GitHubError, float | None, float], None] = lambda e, w, left: None,
) -> T:
    """`call`, repeated after a GitHubError the transport could not retry (a POST, or its
    retries spent) when the call as a whole is safe to repeat: a status (the newest counts),
    an upsert (it lists the comments again first). At most `attempts` tries of a 5xx, within
    `wait_bound` seconds in all; `insist`: a rate limit is waited out, however many tries
    that takes, if it falls within the bound. The last error is raised, after
    `on_give_up(error, the wait it asked for, seconds left of the bound)`."""
    deadline = clock.time() + wait_bound
    attempt = 0
    while True:
        try:
            return call()
        except GitHubError as e:
            wait = wait_for(e, attempt, insist=insist)
            attempt += 1
            left = deadline - clock.time()
            limited = insist and isinstance(e, GitHubRateLimited)  # waited out, not counted
            if (
                wait is None
                or attempts <= 1
                or wait > left
                or (not limited and attempt >= attempts)
            ):
                on_give_up(e, wait, left)
                raise
            on_retry(e, wait)
            clock.sleep(wait)
