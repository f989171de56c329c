"""A version's source downloads under its own name, quoted so no name can break the header."""

import pytest

from bots.models import Bot


@pytest.mark.parametrize(
    "filename, header",
    [
        ("main.py", 'attachment; filename="main.py"'),
        ('q"uo.py', 'attachment; filename="q\\"uo.py"'),
        ("back\\slash.py", 'attachment; filename="back\\\\slash.py"'),
        ("épée.py", "attachment; filename*=utf-8''%C3%A9p%C3%A9e.py"),
    ],
)
def test_content_disposition_is_escaped(make_user, client_for, stored_version, filename, header):
    alice = make_user("alice")
    version = stored_version(Bot.objects.create(owner=alice, name="b1", game="pairs"))
    version.filename = filename
    version.save(update_fields=["filename"])
    response = client_for(alice).get(f"/api/versions/{version.pk}/source/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == header
