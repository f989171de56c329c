"""Training adapters: every registered game as a PettingZoo AEC environment
(``games.adapters.pettingzoo.env``), as an OpenSpiel game
(``games.adapters.openspiel.load``) and as a batch of matches stepped together
(``games.adapters.vector.vector``: numpy arrays, auto-reset).

The engines stay pure Python: only ``pettingzoo.py``, ``openspiel.py``, ``vector.py``
and ``incremental.py`` (the vectors re-encoded where the observation changed) import the
optional extras (requirements-extras.txt), and nothing in the server imports them.
``codec.py`` (actions <-> integers, observation -> vector) is standard library only,
so a trained bot ships it in its zip. Guide: docs/training.md.
"""
