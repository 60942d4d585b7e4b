"""The Redis cache, forgiving: a cache that is down is a cache that misses.

Django's own Redis backend raises when Redis cannot be reached, which turned every page
that reads the cache (the public club page, the boards) into a 500, and every write that
bumps a version after its commit into an error. Here a Redis error is logged and the
operation answers as a miss would: ``get`` the default, ``get_many`` nothing, ``add``
False, ``set`` and ``delete`` nothing done; the page is built from the database.

After an error the process leaves Redis alone for ``PAUSE`` seconds (a Redis that does not
answer would otherwise cost each call its socket timeout, several per page). What a miss
costs meanwhile: pages built afresh, and a version bump lost, so a page cached before the
outage may be shown until it expires (``PUBLIC_PAGE_SECONDS``).

``check()`` (``/health/``) asks Redis itself, pause or not, and raises what it meets.
"""

from __future__ import annotations

import logging
import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

PAUSE = 2.0  # seconds
_down_until: dict[str, float] = {}  # server -> until when (monotonic clock), per process


class RedisCache(DjangoRedisCache):
    def _safely(self, operation: str, miss, call, *args):
        server = self._servers[0]
        if time.monotonic() < _down_until.get(server, 0.0):
            return miss
        try:
            return call(*args)
        except (RedisError, OSError) as error:
            _down_until[server] = time.monotonic() + PAUSE
            log.warning("cache: %s failed, treated as a miss: %s", operation, error)
            return miss

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._safely("add", False, super().add, key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._safely("get", default, super().get, key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._safely("set", None, super().set, key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._safely("touch", False, super().touch, key, timeout, version)

    def delete(self, key, version=None):
        return self._safely("delete", False, super().delete, key, version)

    def get_many(self, keys, version=None):
        return self._safely("get_many", {}, super().get_many, keys, version)

    def has_key(self, key, version=None):
        return self._safely("has_key", False, super().has_key, key, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._safely("set_many", list(data), super().set_many, data, timeout, version)

    def delete_many(self, keys, version=None):
        return self._safely("delete_many", None, super().delete_many, keys, version)

    def clear(self):
        return self._safely("clear", False, super().clear)

    def check(self) -> None:
        """Raise what Redis answers to a PING (``/health/``); on success the pause ends."""
        self._cache.get_client(write=True).ping()
        _down_until.pop(self._servers[0], None)
