"""``id_url`` writes what ``{% url %}`` writes, under any script prefix."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.urls import NoReverseMatch, reverse, set_script_prefix

from arena.dashboard.templatetags.arena_links import id_url


@pytest.mark.parametrize("prefix", ["/", "/arena/", "/a b/"])
def test_id_links_equal_the_url_tag(prefix):
    set_script_prefix(prefix)
    try:
        for name in ("bot", "match", "tournament"):
            for pk in (0, 7, 1234567890123):
                assert id_url(pk, name) == reverse(name, args=[pk])
                tag = Template(f"{{% url '{name}' pk %}}").render(Context({"pk": pk}))
                link = Template(f'{{% load arena_links %}}{{{{ pk|id_url:"{name}" }}}}')
                assert link.render(Context({"pk": pk})) == tag
    finally:
        set_script_prefix("/")


def test_anything_but_an_int_id_goes_through_reverse():
    assert id_url("12", "bot") == reverse("bot", args=["12"])
    with pytest.raises(NoReverseMatch):
        id_url("x", "bot")
    with pytest.raises(NoReverseMatch):
        id_url(True, "bot")  # a bool is no id, whatever int() makes of it
