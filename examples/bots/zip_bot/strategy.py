"""The helper module of the zip example: prefers the largest legal value when actions are
numbers, else the first one. Imported by main.py (the bot's folder is on sys.path)."""


def choose(observation, legal, clock):
    numbers = [a for a in legal if isinstance(a, int) and not isinstance(a, bool)]
    return max(numbers) if numbers else legal[0]
