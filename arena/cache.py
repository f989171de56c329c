"""Django's Redis cache, with one Redis client per connection pool.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` around the same pool
for every cache call; each build copies redis-py's table of ~170 response callbacks, a
large part of a small GET's round trip (bench/README.md), paid by every stored read. The
client only holds the pool (which hands out connections, and starts afresh in a forked
child), so one per pool serves every call and thread.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class ReusedClient(RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write: bool = False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(
                connection_pool=self._get_connection_pool(write)
            )
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = ReusedClient
