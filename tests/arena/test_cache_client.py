"""The Redis cache backend (arena.cache) keeps one Redis client per connection pool,
instead of Django's new client per call, and still works as Django's."""

from __future__ import annotations

import uuid

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

from arena.cache import RedisCache
from tests.support.servers import redis_url


def test_one_client_per_pool_and_the_same_answers_as_djangos():
    prefix = f"test-cache-client-{uuid.uuid4().hex}"
    ours = RedisCache(redis_url(), {"KEY_PREFIX": prefix})
    django = DjangoRedisCache(redis_url(), {"KEY_PREFIX": prefix})
    client = ours._cache.get_client()
    assert ours._cache.get_client(write=True) is client
    assert django._cache.get_client() is not django._cache.get_client()
    ours.set("a", (b"body", 1))
    assert ours.add("b", "x") and not ours.add("b", "y")
    assert django.get_many(["a", "b", "c"]) == {"a": (b"body", 1), "b": "x"}
    assert ours.get_many(["a", "b", "c"]) == django.get_many(["a", "b", "c"])
    ours.delete_many(["a", "b"])
    assert ours.get("a") is None and django.get("b") is None
