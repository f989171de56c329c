"""Forms of the rating pages: head to head, and a bot's gating settings."""

from __future__ import annotations

from django import forms

from bots.models import Bot

BOT_NAMES_LIST = "h2h-bots"


class BotNameField(forms.CharField):
    """A bot of the form's game, typed by name (a datalist offers names as one types, from
    a small JSON query, instead of a select listing every bot). An id is accepted too, so
    links of the form ``?a=<id>&b=<id>`` keep working."""

    def __init__(self, **kwargs):
        attrs = {"list": BOT_NAMES_LIST, "autocomplete": "off", "placeholder": "bot name"}
        super().__init__(max_length=40, widget=forms.TextInput(attrs=attrs), **kwargs)
        self.game = ""

    def clean(self, value):
        value = super().clean(value)
        bots = Bot.objects.filter(game=self.game)
        bot = bots.filter(name=value).first()
        if bot is None and value.isdigit() and len(value) < 12:
            bot = bots.filter(pk=int(value)).first()
        if bot is None:
            raise forms.ValidationError(f"No {self.game} bot is called “{value}”.")
        return bot


class HeadToHeadForm(forms.Form):
    a = BotNameField(label="Bot")
    b = BotNameField(label="against")
    pool = forms.ChoiceField(required=False, label="Pool")

    def __init__(self, *args, game: str, pools: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["a"].game = game
        self.fields["b"].game = game
        self.fields["pool"].choices = [(p["key"], p["label"]) for p in pools]
        if self.is_bound:  # show names where the query gave ids
            ids = [v for f in ("a", "b") if (v := str(self.data.get(f, ""))).isdigit()]
            ids = [int(v) for v in ids if len(v) < 12]
            taken = Bot.objects.filter(game=game, name__in=[str(i) for i in ids])
            ids = [i for i in ids if str(i) not in set(taken.values_list("name", flat=True))]
            if ids:
                names = dict(Bot.objects.filter(pk__in=ids, game=game).values_list("pk", "name"))
                self.data = self.data.copy()
                for f in ("a", "b"):
                    v = str(self.data.get(f, ""))
                    if v.isdigit() and len(v) < 12 and int(v) in names:
                        self.data[f] = names[int(v)]

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
