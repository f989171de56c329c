"""Read models: tables kept up to date as results are recorded, so a page reads rows
instead of recomputing. ``totals`` and ``snapshot`` are the standings (below);
``leaderboard_rows`` is every pool's leaderboard; ``replays`` holds finished matches'
replay answers.

Standings: drawing a tournament's standings from its games costs a pass over every decided
match (20,000 in a 200-bot round robin); the tables here make a read cost one row instead:

- :class:`~tournaments.models.EntryTally` and :class:`~tournaments.models.PairTally` hold
  each entrant's totals and what each pair scored against each other. They change in the
  transaction that decides a match (recorded, failed, or a failure taken back to be played
  again), under the tournament's lock, by :func:`count_result`; what a game adds is
  computed by the same code a full rebuild sums (:func:`_contribution`), so the two agree.
- ``Tournament.results_version`` (the results mark) is bumped in that same transaction,
  and :class:`~tournaments.models.StandingsSnapshot` holds the overview of one mark. A
  read that finds the snapshot of the current mark uses it; any other is rebuilt from the
  totals (round robin, gauntlet) or the decided games (Swiss and elimination, whose rounds
  depend on every pairing, and whose events are small), so a snapshot cannot drift.

A tournament whose totals were never built (matches bulk-loaded, or decided before these
tables existed) gets them from its matches at the first result or read;
``manage.py rebuild_read_models`` rebuilds every tournament's from the matches.
"""

from tournaments.read_models.snapshot import (  # noqa: F401
    decider_points_of,
    latest_lowest_score_wins,
    match_counts,
    overview_data,
    pair_points,
    rebuild_standings,
    refresh_after_commit,
    refresh_snapshot,
    rounds_and_bracket,
    stored_game_points,
    table_and_series_points,
)
from tournaments.read_models.totals import (  # noqa: F401
    DECIDED,
    ENTRY_FIELDS,
    PAIR_FIELDS,
    Seat,
    bump_results_mark,
    count_new_result,
    count_result,
    points_scale,
    rebuild_totals,
    reset_totals,
    stored_totals,
    totals_drifted,
    totals_from_matches,
)
