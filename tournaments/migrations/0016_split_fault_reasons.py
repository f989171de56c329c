"""Seats that faulted before ``fault_detail`` existed: what their bot wrote (a crash's
stderr tail, the line or action it answered) leaves the public fault, in the seat and in
its match's result, for the owner-only ``fault_detail``; and the reason names its move as
the replay viewer numbers them (the fault's ``move`` + 1), not by the seat's own turns."""

from django.db import migrations

from bots.migrations._old_reasons import public_fault

BATCH = 500


def split_faults(apps, schema_editor):
    Match = apps.get_model("tournaments", "Match")
    MatchSeat = apps.get_model("tournaments", "MatchSeat")
    seats = MatchSeat.objects.filter(fault__isnull=False).only(
        "id", "match_id", "seat", "fault", "fault_detail"
    )
    changed, by_match = [], {}
    for seat in seats.order_by("id").iterator(chunk_size=BATCH):
        if not isinstance(seat.fault, dict):
            continue
        fault, detail = public_fault(seat.fault)
        if fault == seat.fault:
            continue
        seat.fault = fault
        seat.fault_detail = seat.fault_detail or detail
        changed.append(seat)
        by_match.setdefault(seat.match_id, {})[seat.seat] = fault
        if len(changed) >= BATCH:
            MatchSeat.objects.bulk_update(changed, ["fault", "fault_detail"])
            changed = []
    MatchSeat.objects.bulk_update(changed, ["fault", "fault_detail"])
    ids = list(by_match)
    for start in range(0, len(ids), BATCH):
        matches = list(Match.objects.filter(pk__in=ids[start : start + BATCH]).only("id", "result"))
        for match in matches:
            seats_of = (match.result or {}).get("seats") or []
            for number, fault in by_match[match.pk].items():
                if number < len(seats_of) and isinstance(seats_of[number], dict):
                    seats_of[number]["fault"] = fault
        Match.objects.bulk_update(matches, ["result"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0015_seat_fault_detail"),
    ]

    operations = [
        migrations.RunPython(split_faults, migrations.RunPython.noop, elidable=True),
    ]
