"""Bulk local play (``manage.py play --games N``), free of Django so its worker processes
start quickly: ``plan`` (who meets whom, every game's deal, seed and seating), ``play``
(the command's options and the games run in worker processes) and ``report`` (the figures
and tables printed afterwards)."""
