"""The one retry policy of every GitHub call (urllib3 ``Retry`` in the transport): idempotent
methods are retried on 500/502/503/504 and on a read timeout, POST never (it may have
landed); a Retry-After above :data:`MAX_RETRY_AFTER` is returned, not slept through. Callers
never retry again."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final, TypeVar

from roofbot.adapters.github.errors import GitHubError, GitHubRateLimited, GitHubUnavailable
from roofbot.adapters.github.models import GitHubSettings

if TYPE_CHECKING:
    from types import TracebackType
    from typing import Self

    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import BaseHTTPResponse
    from urllib3.util.retry import Retry

#: A Retry-After longer than this is not slept through in a CI job: the 429/403/503 is returned
#: and surfaces as :class:`GitHubRateLimited` (or :class:`GitHubUnavailable`) with the wait.
MAX_RETRY_AFTER: Final = 10.0
_RETRY_STATUSES: Final = (500, 502, 503, 504)
_IDEMPOTENT: Final = frozenset({"GET", "HEAD", "PATCH", "PUT", "DELETE"})


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


# ------------------------------------------------------------- a whole call, repeated

T = TypeVar("T")
#: Seconds a call is held back for GitHub to recover (a Retry-After, a 5xx) at most, unless
#: the caller insists (the final status: a rate limit is waited out to its reset).
MAX_WAIT: Final = 10.0


def wait_for(error: Exception, attempt: int, *, insist: bool = False) -> float | None:
    """Seconds to wait before repeating a call that failed with `error`, or None: not worth
    repeating (a 4xx, or a rate limit that resets later than roofbot may wait). `insist`
    (the final status, one request that decides whether a PR stays pending): a rate limit's
    whole wait, as its headers give it (`retry-after`, else the reset time), for the caller
    to hold against its bound."""
    if isinstance(error, GitHubRateLimited):
        wait = error.retry_after
        if insist:
            return limit_wait(error)
        if wait is not None and wait <= MAX_WAIT:
            return wait
        return None
    if isinstance(error, GitHubUnavailable):
        return min(float(2**attempt), MAX_WAIT)
    return None


def limit_wait(error: GitHubRateLimited) -> float:
    """How long a rate limit lasts, from its headers: `retry-after` (a secondary limit, 60 s
    or more on GitHub), else until `x-ratelimit-reset` (a primary limit), plus a second for
    clocks; 60 s when GitHub gave neither, as its documentation says to wait."""
    if error.retry_after is not None:  # a secondary limit says how long, whatever the reset
        return max(float(error.retry_after), 0.0)
    if error.reset_at is not None:
        left = float((error.reset_at - datetime.now(UTC)).total_seconds()) + 1.0
        return round(max(left, 0.0), 1)
    return 60.0


def repeat(
    call: Callable[[], T],
    *,
    attempts: int,
    wait_bound: float = float("inf"),
    insist: bool = False,
    on_retry: Callable[[GitHubError, float], None] = lambda error, wait: None,
    on_give_up: Callable[[GitHubError, float | None, float], None] = lambda e, w, left: None,
) -> T:
    """`call`, repeated after a GitHubError the transport could not retry (a POST, or its
    retries spent) when the call as a whole is safe to repeat: a status (the newest counts),
    an upsert (it lists the comments again first). At most `attempts` tries of a 5xx, within
    `wait_bound` seconds in all; `insist`: a rate limit is waited out to its reset, however
    many tries that takes, if it falls within the bound. The last error is raised, after
    `on_give_up(error, the wait it asked for, seconds left of the bound)`."""
    deadline = time.monotonic() + wait_bound
    attempt = 0
    while True:
        try:
            return call()
        except GitHubError as e:
            wait = wait_for(e, attempt, insist=insist)
            attempt += 1
            left = deadline - time.monotonic()
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
            time.sleep(wait)
