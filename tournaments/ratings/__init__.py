"""Rating statistics as pure functions: no Django, no database (numpy for the pool fit).

- ``match``: one pairing's record (W-D-L or game pairs on duplicate deals) as a
  score, an Elo difference with its 95% margin and the likelihood of superiority.
- ``sprt``: the sequential probability ratio test fishtest gates changes with.
- ``bradley_terry``: the maximum-likelihood fit over a whole pool, with intervals.
- ``glicko2``: Glickman's rating-period update.
- ``trueskill`` and ``plackett_luce``: the Gaussian skill models (TrueSkill for
  single-player free-for-all, OpenSkill's Plackett-Luce for ranked teams), for
  comparison with the anchors' numbers; written out, no package needed.

The leaderboard, head-to-head pages, version gating and local bulk play all call
these same functions; ``tournaments.stats`` is a facade of fixed names over them.
"""
