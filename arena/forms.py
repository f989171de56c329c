"""Forms of the dashboard. They only parse; the services decide."""

from __future__ import annotations

import json

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Q
from django.utils import timezone

from arena import throttling
from bots.models import Bot
from games import registry
from tournaments.models import Tournament


def game_choices():
    return [(slug, registry.get(slug).title) for slug in registry.slugs()]


class BotUploadForm(forms.Form):
    name = forms.CharField(max_length=40)
    game = forms.ChoiceField(choices=game_choices)
    description = forms.CharField(max_length=500, required=False)
    accepts_entries = forms.BooleanField(
        required=False,
        initial=True,
        label="Other organisers may enter it",
        help_text="Your own tournaments may always enter your bots.",
    )
    file = forms.FileField(help_text="A .py file, or a .zip with main.py at its root")


class VersionUploadForm(forms.Form):
    file = forms.FileField(help_text="A .py file, or a .zip with main.py at its root")


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=100)
    game = forms.ChoiceField(choices=game_choices)
    bots = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Entrants (bots of the chosen game with an active version): your own, "
        "and other people's that accept entries",
    )
    format = forms.ChoiceField(
        choices=Tournament.Format.choices,
        initial=Tournament.Format.ROUND_ROBIN,
        help_text="Round robin: everyone meets everyone. Swiss: rounds of neighbours by score. "
        "Elimination: a seeded bracket. Gauntlet: the challengers meet every other entrant.",
    )
    seeding = forms.ChoiceField(
        choices=[
            (Tournament.Seeding.RATING, "by current rating"),
            (Tournament.Seeding.ENTRY, "in the order listed"),
        ],
        initial=Tournament.Seeding.RATING,
        help_text="How entrants are seeded into brackets and first rounds",
    )
    players_per_match = forms.IntegerField(min_value=1, max_value=16, required=False)
    games_per_pairing = forms.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        help_text="Games per pairing or series on the same deals; with rotated seats a "
        "multiple of the players per match (empty: one game per seat rotation)",
    )
    rotate_seats = forms.BooleanField(required=False, initial=True)
    rounds = forms.IntegerField(
        min_value=1, max_value=100, required=False, help_text="Swiss: empty = log2(entrants) + 1"
    )
    challengers = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Gauntlet: the entrants who play everyone else",
    )
    advance = forms.IntegerField(
        min_value=1,
        max_value=15,
        initial=1,
        help_text="Elimination with 3+ players per match: how many of each table go through",
    )
    third_place = forms.BooleanField(
        required=False, help_text="Single elimination: a series for third place"
    )
    grand_final_reset = forms.BooleanField(
        required=False,
        initial=True,
        help_text="Double elimination: a second final if the losers' bracket champion wins",
    )
    move_ms = forms.IntegerField(
        min_value=10, max_value=60000, initial=1000, label="Move time (ms)"
    )
    bank_ms = forms.IntegerField(
        min_value=0, max_value=600000, initial=10000, label="Time bank (ms)"
    )
    rated = forms.BooleanField(
        required=False, initial=True, help_text="Unrated matches do not move anyone's Elo"
    )
    start_at = forms.DateTimeField(
        required=False, help_text="UTC, e.g. 2026-12-01 18:00; empty = now"
    )
    options = forms.CharField(
        required=False,
        initial="{}",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text='JSON object of game options, e.g. {"continuous": true}',
    )

    def __init__(self, *args, organiser, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bots"].queryset = Bot.objects.filter(
            Q(owner=organiser) | Q(accepts_entries=True)
        ).order_by("game", "name")
        self.fields["challengers"].queryset = self.fields["bots"].queryset

    def clean_options(self):
        text = self.cleaned_data["options"].strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc.msg}") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("options must be a JSON object")
        return value

    def clean_start_at(self):
        return self.cleaned_data["start_at"] or timezone.now()


class ThrottledLoginMixin:
    """Refuse a log-in before the password is checked once its account or address has
    failed too often (see arena.throttling)."""

    def clean(self):
        message = throttling.refusal(self.request, *throttling.LOGIN_THROTTLES)
        if message:
            raise forms.ValidationError(message, code="throttled")
        return super().clean()


class ThrottledLoginForm(ThrottledLoginMixin, AuthenticationForm):
    """The dashboard's log-in form."""


class ThrottledAdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin site's log-in form: its accounts are the ones most worth guessing."""
