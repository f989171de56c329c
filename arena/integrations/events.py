"""The kinds of event Arena tells people of, and where each goes by default."""

from __future__ import annotations

# kind -> what a person reads in the preferences page.
KINDS = {
    "version.validated": "A version of your bot passed its validation",
    "version.refused": "A version of your bot was refused, with the reason",
    "gate.decided": "A version's gate decided whether it plays",
    "version.crash_streak": "A version faulted in too many matches in a row and was taken out of play",
    "challenge.received": "A challenge waits for your answer",
    "challenge.accepted": "Your challenge was accepted",
    "challenge.declined": "Your challenge was declined",
    "challenge.finished": "A challenge your bot played finished, with the score",
    "tournament.started": "A tournament your bot entered (or you organise) started",
    "tournament.finished": "A tournament your bot entered (or you organise) finished, with the places",
    "competition.announcement": "An announcement in a competition you entered or organise",
    "webhook.disabled": "One of your webhooks was turned off after failing",
}
# Sent to one webhook by its "Send a test" button, whatever kinds it takes: not a choice.
TEST_KIND = "webhook.test"

# (inbox, email, webhooks) for a kind without a choice of its own.
DEFAULT_CHANNELS = (True, False, True)
