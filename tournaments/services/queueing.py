"""Sending a match to the workers; shared by scheduling and playing so neither imports the other."""

from __future__ import annotations

from bots.queueing import PLAY_MATCH, publish_after_commit


def queue_match_after_commit(match_id: int) -> None:
    """Publish the match's task once the transaction commits.

    A broker that is down is logged, not raised: the match is stored as queued, and the
    reaper sends it again when the broker no longer holds a message for it.
    """
    publish_after_commit(PLAY_MATCH, args=[match_id])
