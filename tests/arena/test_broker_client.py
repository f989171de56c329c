"""The Redis broker transport (arena.broker) keeps one Redis client per connection pool for
kombu's synchronous calls, and messages go through it as through kombu's own: published,
delivered, held as unacknowledged, acknowledged, restored when not acknowledged."""

from __future__ import annotations

import uuid

from django.conf import settings
from kombu import Connection

from arena.broker import Channel
from tests.support.servers import redis_url


def test_one_client_per_pool_and_messages_delivered_and_acknowledged():
    queue_name = f"test-broker-client-{uuid.uuid4().hex}"
    with Connection(redis_url(), transport="arena.broker:Transport") as connection:
        channel = connection.default_channel
        assert isinstance(channel, Channel)
        client = channel._create_client()
        assert channel._create_client() is client
        assert connection.transport.driver_type == "redis"
        queue = connection.SimpleQueue(queue_name)
        try:
            queue.put({"match": 1})
            queue.put({"match": 2})
            first = queue.get(timeout=5)
            assert first.payload == {"match": 1}
            assert client.hexists(channel.unacked_key, first.delivery_tag)  # held until acked
            first.ack()
            assert not client.hexists(channel.unacked_key, first.delivery_tag)
            second = queue.get(timeout=5)
            assert second.payload == {"match": 2}
            second.requeue()  # given back, delivered again
            again = queue.get(timeout=5)
            assert again.payload == {"match": 2}
            again.ack()
            assert not client.hexists(channel.unacked_key, again.delivery_tag)
            assert channel._create_client() is client
        finally:
            queue.clear()
            queue.close()


def test_the_settings_take_it_for_a_redis_broker():
    if settings.CELERY_BROKER_URL.startswith("redis://"):
        assert settings.CELERY_BROKER_TRANSPORT == "arena.broker:Transport"
    else:
        assert not hasattr(settings, "CELERY_BROKER_TRANSPORT")
