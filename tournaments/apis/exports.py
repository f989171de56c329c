"""Downloads of the tables the pages show (standings, crosstable, matches, rating history),
as CSV for a spreadsheet or JSON for a program. The pages link to these."""

from __future__ import annotations

import csv
import io

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import Bot
from tournaments.models import Ladder, Tournament
from tournaments.selectors import exports


class FirstRenderer(BaseContentNegotiation):
    """The answer's type comes from the path (``.csv``, ``.json``), not from Accept: a
    browser's link asks for anything, and an error is JSON either way."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ColumnSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="the name of the value in each row")
    label = serializers.CharField(help_text="the column's heading on the page (and in the CSV)")


class TableSerializer(serializers.Serializer):
    columns = ColumnSerializer(many=True)
    rows = serializers.ListField(
        child=serializers.DictField(), help_text="one object a row, by column key, in the order"
    )


def csv_text(table: exports.Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([label for _, label in table.columns])
    for values in table.values():
        writer.writerow(["" if v is None else _cell(v) for v in values])
    return out.getvalue()


def _cell(value) -> str:
    text = str(value)
    # A cell a spreadsheet would run as a formula (a bot's name is chosen by its owner).
    if len(text) > 1 and text[0] in "=+-@\t\r" and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def table_response(table: exports.Table, fmt: str):
    if fmt == "csv":
        # The byte-order mark makes spreadsheets read the names as UTF-8.
        body = "\ufeff" + csv_text(table)
        response = HttpResponse(body.encode("utf-8"), content_type="text/csv; charset=utf-8")
    else:
        data = {
            "columns": [{"key": key, "label": label} for key, label in table.columns],
            "rows": [{key: row.get(key) for key, _ in table.columns} for row in table.rows],
        }
        response = Response(data)
    response["Content-Disposition"] = f'attachment; filename="{table.name}.{fmt}"'
    return response


class ExportApi(APIView):
    """One table in one format; subclasses say which (``fmt``) and how it is read."""

    content_negotiation_class = FirstRenderer
    fmt = "json"

    def get(self, request, pk):
        self.reader = request.user
        return table_response(self.table(pk), self.fmt)

    def table(self, pk) -> exports.Table:
        raise NotImplementedError


def _tournament(pk) -> Tournament:
    return get_object_or_404(Tournament, pk=pk)


class TournamentStandingsExport(ExportApi):
    def table(self, pk):
        return exports.standings_table(tournament=_tournament(pk), user=self.reader)


class TournamentCrosstableExport(ExportApi):
    def table(self, pk):
        tournament = _tournament(pk)
        if not exports.has_crosstable(tournament):
            raise NotFound("only a round robin has a crosstable; download its standings")
        return exports.crosstable_table(tournament=tournament, user=self.reader)


class TournamentMatchesExport(ExportApi):
    def table(self, pk):
        return exports.tournament_matches_table(tournament=_tournament(pk), user=self.reader)


class LadderMatchesExport(ExportApi):
    def table(self, pk):
        return exports.ladder_matches_table(ladder=get_object_or_404(Ladder, pk=pk))


class BotRatingsExport(ExportApi):
    def table(self, pk):
        return exports.rating_history_table(bot=get_object_or_404(Bot, pk=pk))


WHAT = {
    TournamentStandingsExport: "a tournament's standings",
    TournamentCrosstableExport: "a round robin's crosstable (404 for other formats)",
    TournamentMatchesExport: "every match of a tournament, newest first",
    LadderMatchesExport: "every match of a ladder, newest first",
    BotRatingsExport: "a bot's rating history in its most played pool, newest first",
}


def export_view(base: type[ExportApi], fmt: str):
    """The view of ``base``'s table as ``fmt`` (``csv`` or ``json``), documented as such."""
    if fmt == "csv":
        ok = {(200, "text/csv"): OpenApiResponse(str, description=f"{WHAT[base]}, as CSV")}
    else:
        ok = {200: OpenApiResponse(TableSerializer, description=f"{WHAT[base]}, as JSON")}
    view = type(f"{base.__name__}{fmt.title()}", (base,), {"fmt": fmt})
    view.get = extend_schema(
        responses=ok, operation_id=f"{base.__name__}_{fmt}", description=WHAT[base]
    )(_copy_get(base))
    return view.as_view()


def _copy_get(base):
    def get(self, request, pk):
        return base.get(self, request, pk)

    return get
