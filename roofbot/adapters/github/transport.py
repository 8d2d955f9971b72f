"""The one retry policy of every GitHub call (urllib3 ``Retry`` in the transport): idempotent
methods are retried on 500/502/503/504 and on a read timeout, POST never (it may have
landed); a Retry-After above :data:`MAX_RETRY_AFTER` is returned, not slept through. Callers
never retry again."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final

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
