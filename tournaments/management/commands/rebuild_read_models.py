"""Rebuild the read models kept beside the rows they summarise, after a bulk load or a
restore that bypassed the code (and triggers) that keep them."""

from django.core.management.base import BaseCommand

from tournaments.services.ladder import recount_ladders


class Command(BaseCommand):
    help = "Rebuild stored read models (ladder match counters) from the rows."

    def handle(self, *args, **options):
        recount_ladders()
        self.stdout.write("ladder counters recounted")
