"""The ``arena`` command: a client of an Arena server's REST API (and nothing else)."""

__version__ = "1.0.0"
