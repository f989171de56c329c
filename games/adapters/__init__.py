"""Training adapters: every registered game as a PettingZoo AEC environment
(``games.adapters.pettingzoo.env``) and as an OpenSpiel game
(``games.adapters.openspiel.load``).

The engines stay pure Python: only ``pettingzoo.py`` and ``openspiel.py`` import the
optional extras (requirements-extras.txt), and nothing in the server imports them.
``codec.py`` (actions <-> integers, observation -> vector) is standard library only,
so a trained bot ships it in its zip. Guide: docs/training.md.
"""
