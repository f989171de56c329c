"""A competition's archive: one JSON document with every match of it (deal seeds and their
commitments, versions' sha256, moves, results), the final's format and parameters and the
standings, which anyone can check without the bots or the database (docs/archive.md).

``export`` builds the document from the database; ``verify`` checks one and imports no
Django, so a participant runs it on their own machine.
"""
