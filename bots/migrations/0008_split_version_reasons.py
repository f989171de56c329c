"""Versions made invalid before ``reason_detail`` existed: what their bot wrote (a failed
test match's stderr tail, a failed build's output) leaves the public ``reason`` for the
owner-only ``reason_detail``."""

from django.db import migrations

from bots.migrations._old_reasons import split_version_reason

BATCH = 500


def split_reasons(apps, schema_editor):
    BotVersion = apps.get_model("bots", "BotVersion")
    rows = BotVersion.objects.filter(reason_detail="").exclude(reason="").only("id", "reason")
    changed = []
    for version in rows.iterator(chunk_size=BATCH):
        public, detail = split_version_reason(version.reason)
        if detail:
            version.reason, version.reason_detail = public, detail
            changed.append(version)
        if len(changed) >= BATCH:
            BotVersion.objects.bulk_update(changed, ["reason", "reason_detail"])
            changed = []
    BotVersion.objects.bulk_update(changed, ["reason", "reason_detail"])


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0007_version_reason_detail"),
    ]

    operations = [
        migrations.RunPython(split_reasons, migrations.RunPython.noop, elidable=True),
    ]
