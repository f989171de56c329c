"""kombu's Redis transport with one Redis client per connection pool.

kombu builds a new ``redis.Redis`` around the channel's pool for every synchronous call
(``Channel.conn_or_acquire``): each delivery's bookkeeping (the unacked index), each ack and
each publish. Each build copies redis-py's table of ~170 response callbacks, upper-casing
every name: about as long as the pipeline round trip it serves, twice a match in a worker's
main process. The client only holds the pool (which hands out a connection per command and
starts afresh in a forked child), so one per pool serves every call, as in ``arena.cache``.
Nothing else changes: the same pool, connections, commands and Lua scripts.
"""

from __future__ import annotations

from kombu.transport import redis


class Channel(redis.Channel):
    _reused_client = None

    def _create_client(self, asynchronous=False):
        if asynchronous:  # the BRPOP and pub/sub clients: built once already (cached_property)
            return super()._create_client(asynchronous=True)
        client = self._reused_client
        if client is None or client.connection_pool is not self.pool:
            client = self._reused_client = super()._create_client()
        return client


class Transport(redis.Transport):
    Channel = Channel
