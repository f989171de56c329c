"""Forms of the rating pages: head to head, and a bot's gating settings."""

from __future__ import annotations

from django import forms
from django.db.models import Q

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
        # The game's bots by name that the form's values may name, when the form read them.
        self.known: dict[str, Bot] | None = None

    def clean(self, value):
        value = super().clean(value)
        if self.known is not None:  # the form's bots, read at once (HeadToHeadForm)
            bot = self.known.get(value)
            if bot is None and value.isdigit() and len(value) < 12:
                bot = next((b for b in self.known.values() if b.pk == int(value)), None)
        else:
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
            # A digit string is an id unless a bot of the game bears it as its name: every
            # bot the values may name (by name or id) in one query, which the fields reuse.
            texts = [str(self.data.get(f, "")).strip() for f in ("a", "b")]
            # What the fields refuse (a NUL, too long) names no bot: not sent to the database.
            texts = [t for t in texts if "\x00" not in t and len(t) <= 40]
            texts += [str(i) for i in ids]
            found = Bot.objects.filter(Q(name__in=texts) | Q(pk__in=ids), game=game)
            known = {bot.name: bot for bot in found}
            self.fields["a"].known = self.fields["b"].known = known
            ids = [i for i in ids if str(i) not in known]
            if ids:
                names = {bot.pk: name for name, bot in known.items() if bot.pk in ids}
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
