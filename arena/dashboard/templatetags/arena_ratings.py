"""The bot page's gating section, as an inclusion tag so the page's view stays as it is."""

from __future__ import annotations

from django import template

from tournaments import selectors

register = template.Library()


@register.inclusion_tag("arena/_bot_gating.html", takes_context=True)
def bot_gating(context, bot, is_owner: bool) -> dict:
    # A bot read with ``bot_page.with_sections`` tells whether it has any.
    gates = selectors.gates_of_bot(bot=bot) if getattr(bot, "has_gates", True) else []
    for gate in gates:
        # Where the LLR sits between its bounds, in percent, for the bar.
        span = gate["upper"] - gate["lower"]
        gate["position"] = round(100 * min(max((gate["llr"] - gate["lower"]) / span, 0), 1), 1)
    return {
        "bot": bot,
        "is_owner": is_owner,
        "gates": gates,
        "csrf_token": context.get("csrf_token"),
    }
