"""Forms of the rating pages: head to head, and a bot's gating settings."""

from __future__ import annotations

from django import forms

from bots.models import Bot


class HeadToHeadForm(forms.Form):
    a = forms.ModelChoiceField(queryset=Bot.objects.none(), label="Bot")
    b = forms.ModelChoiceField(queryset=Bot.objects.none(), label="against")
    pool = forms.ChoiceField(required=False, label="Pool")

    def __init__(self, *args, game: str, pools: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        bots = Bot.objects.filter(game=game).order_by("name")
        self.fields["a"].queryset = bots
        self.fields["b"].queryset = bots
        self.fields["pool"].choices = [(p["key"], p["label"]) for p in pools]

    def clean(self):
        data = super().clean()
        if data.get("a") and data.get("a") == data.get("b"):
            raise forms.ValidationError("Pick two different bots.")
        return data


class GatingForm(forms.Form):
    gating = forms.BooleanField(required=False, label="Gate new versions")
    elo0 = forms.FloatField(label="elo0 (H0)", min_value=-1000, max_value=1000)
    elo1 = forms.FloatField(label="elo1 (H1)", min_value=-1000, max_value=1000)
    max_games = forms.IntegerField(label="Game cap", min_value=2, max_value=20000)
