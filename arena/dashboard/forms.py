"""Forms of the dashboard. They only parse; the services decide."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from arena import throttling
from bots.models import Bot
from games import InvalidOptions, registry
from tournaments.models import Tournament
from tournaments.services import scheduling


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
    file = forms.FileField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = upload_help()


class VersionUploadForm(forms.Form):
    file = forms.FileField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = upload_help()


def upload_help() -> str:
    """Every kind of upload the server accepts (bots.validation), with the page that says
    how to make each."""
    return format_html(
        "A Python file (<code>.py</code>), or a <code>.zip</code> holding <code>main.py</code>, "
        "a program called <code>main</code> (C, C++, JavaScript, Java, a script) or a "
        '<code>build.sh</code> that makes one. <a href="{}">How to upload each kind</a>.',
        reverse("languages"),
    )


FORMAT_HELP = {
    Tournament.Format.ROUND_ROBIN: "Everyone meets everyone; most points wins. "
    "Fair but long: the games grow with the square of the field.",
    Tournament.Format.SWISS: "A few rounds, each pairing bots with the same score so far; "
    "no rematches while they can be avoided. Ranks a big field in few rounds.",
    Tournament.Format.SINGLE_ELIMINATION: "A seeded bracket of series: a bot that loses a "
    "series is out; the last one standing wins.",
    Tournament.Format.DOUBLE_ELIMINATION: "A seeded bracket where a bot is out after its "
    "second series loss: losers drop to a second bracket, and the two brackets' champions "
    "meet in a grand final.",
    Tournament.Format.GAUNTLET: "The challengers each play every other entrant; the others do "
    "not meet. For testing new bots against a fixed field.",
}

# Which format each setting belongs to (the form shows it only for those).
FORMAT_SETTINGS = {
    "rounds": [Tournament.Format.SWISS],
    "challengers": [Tournament.Format.GAUNTLET],
    "third_place": [Tournament.Format.SINGLE_ELIMINATION],
    "grand_final_reset": [Tournament.Format.DOUBLE_ELIMINATION],
    "advance": [Tournament.Format.SINGLE_ELIMINATION],
}


class BotChoices(forms.CheckboxSelectMultiple):
    """Checkboxes that carry their bot's game and id, so the page can offer only the bots
    of the chosen game (the server checks the game again)."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        bot = getattr(value, "instance", None)
        if bot is not None:
            option["attrs"]["data-game"] = bot.game
        return option


class BotField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj):
        return f"{obj.name} ({obj.game})"


def option_field_name(game: str, option: str) -> str:
    return f"option__{game}__{option}"


def option_form_field(name: str, option) -> forms.Field:
    """The typed input for one of a game's options: a checkbox, a list or a number."""
    label = name.replace("_", " ").capitalize()
    default = option.default
    shown = (
        {True: "on", False: "off"}.get(default, default) if isinstance(default, bool) else default
    )
    help_text = f"{option.help} (default: {shown})" if option.help else f"default: {shown}"
    if isinstance(default, bool):
        return forms.BooleanField(required=False, initial=default, label=label, help_text=help_text)
    if option.choices is not None:
        kind = type(default)
        return forms.TypedChoiceField(
            choices=[(value, str(value)) for value in option.choices],
            coerce=kind,
            required=False,
            empty_value=default,
            initial=default,
            label=label,
            help_text=help_text,
        )
    if isinstance(default, int):
        return forms.IntegerField(
            required=False,
            initial=default,
            min_value=option.minimum,
            max_value=option.maximum,
            label=label,
            help_text=help_text,
        )
    return forms.CharField(
        required=False, initial=default, max_length=200, label=label, help_text=help_text
    )


def local_to_utc(value: datetime, zone_name: str) -> datetime:
    """The instant that ``value``'s wall-clock reading names in ``zone_name`` (an IANA name
    such as ``Europe/Paris``; empty = UTC), in UTC. ValueError for an unknown zone."""
    try:
        zone = ZoneInfo(zone_name) if zone_name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {zone_name!r}") from None
    if timezone.is_aware(value):
        # Django read the text as the server's zone (UTC): keep the reading, not the instant.
        value = timezone.make_naive(value, UTC)
    return value.replace(tzinfo=zone).astimezone(UTC)


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=100)
    game = forms.ChoiceField(choices=game_choices)
    bots = BotField(
        queryset=Bot.objects.none(),
        widget=BotChoices,
        help_text="Entrants: bots of the chosen game with an active version, your own and "
        "other people's that accept entries",
    )
    format = forms.ChoiceField(
        choices=Tournament.Format.choices,
        initial=Tournament.Format.ROUND_ROBIN,
    )
    seeding = forms.ChoiceField(
        choices=[
            (Tournament.Seeding.RATING, "by current rating"),
            (Tournament.Seeding.ENTRY, "in the order listed"),
        ],
        initial=Tournament.Seeding.RATING,
        help_text="How entrants are seeded into brackets and first rounds",
    )
    players_per_match = forms.IntegerField(
        min_value=1, max_value=16, required=False, help_text="Empty: the game's fewest"
    )
    games_per_pairing = forms.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        help_text="Games per pairing or series on the same deals; with rotated seats a "
        "multiple of the players per match (empty: one game per seat rotation)",
    )
    rotate_seats = forms.BooleanField(
        required=False, initial=True, help_text="Every bot plays every seat of each deal"
    )
    rounds = forms.IntegerField(
        min_value=1, max_value=100, required=False, help_text="Empty: log2(entrants) + 1"
    )
    challengers = BotField(
        queryset=Bot.objects.none(),
        required=False,
        widget=BotChoices,
        help_text="The entrants who play everyone else (at least one)",
    )
    advance = forms.IntegerField(
        min_value=1,
        max_value=15,
        initial=1,
        required=False,
        label="Go through per table",
        help_text="With 3 or more players per match: how many of each table go through",
    )
    third_place = forms.BooleanField(
        required=False, label="Third place", help_text="A series for third place"
    )
    grand_final_reset = forms.BooleanField(
        required=False,
        initial=True,
        label="Grand-final reset",
        help_text="A second final if the losers' bracket champion wins the first",
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
    record_visibility = forms.TypedChoiceField(
        required=False,
        empty_value=Tournament.RecordVisibility.FINISHED,
        choices=[
            (Tournament.RecordVisibility.FINISHED, "to everyone once the game is played"),
            (Tournament.RecordVisibility.TOURNAMENT_END, "to everyone once the tournament ends"),
            (Tournament.RecordVisibility.OWNERS, "only to the owners of its bots"),
        ],
        initial=Tournament.RecordVisibility.FINISHED,
        label="Whole records shown",
        help_text="Who sees every seat's cards and actions in a game, and its seed; a "
        "game dealt the same cards as one still to play stays hidden, and each owner "
        "always sees their own bot's seat",
    )
    start_at = forms.DateTimeField(
        required=False,
        label="Start",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text="Empty: now; not in the past. Read as UTC (your browser names its own zone when "
        "scripts run).",
    )
    time_zone = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(self, *args, organiser, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bots"].queryset = Bot.objects.filter(
            Q(owner=organiser) | Q(accepts_entries=True)
        ).order_by("game", "name")
        self.fields["challengers"].queryset = self.fields["bots"].queryset
        # Every game's options, so the form works without scripts; only the chosen
        # game's are read.
        self.option_fields: dict[str, list[str]] = {}
        for slug in registry.slugs():
            names = []
            for name, option in registry.get(slug).options.items():
                field_name = option_field_name(slug, name)
                self.fields[field_name] = option_form_field(name, option)
                names.append(field_name)
            self.option_fields[slug] = names

    def option_groups(self) -> list[dict]:
        """Each game's option inputs, for the template."""
        return [
            {
                "game": slug,
                "title": registry.get(slug).title,
                "min_players": registry.get(slug).min_players,
                "fields": [self[name] for name in names],
            }
            for slug, names in self.option_fields.items()
        ]

    def format_help(self) -> list[tuple[str, str, str]]:
        return [
            (value, label, FORMAT_HELP.get(value, ""))
            for value, label in self.fields["format"].choices
        ]

    def clean(self):
        data = super().clean()
        game = data.get("game")
        # An input of another game is not read: its errors do not count either.
        for slug, names in self.option_fields.items():
            if slug != game:
                for name in names:
                    self._errors.pop(name, None)
                    data.pop(name, None)
        if game:
            data["options"] = self._options_of(game, data)
        if data.get("advance") is None:
            data["advance"] = 1
        start = data.get("start_at")
        if start is None:
            data["start_at"] = timezone.now()
        elif "start_at" not in self._errors:
            try:
                data["start_at"] = local_to_utc(start, data.get("time_zone", ""))
            except ValueError as exc:
                self.add_error("start_at", str(exc))
            else:
                if refusal := scheduling.past_start_refusal(data["start_at"]):
                    self.add_error("start_at", refusal)
        return data

    def _options_of(self, game: str, data: dict) -> dict:
        """The chosen game's options that differ from their defaults (the defaults are
        implied, so a default event is stored as ``{}`` as the API stores it)."""
        options = {}
        for name, option in registry.get(game).options.items():
            field_name = option_field_name(game, name)
            if field_name in self._errors:
                continue
            value = data.get(field_name)
            if value is None or value == "":
                value = option.default
            if value != option.default:
                options[name] = value
        try:
            registry.get(game).resolve_options(options)
        except InvalidOptions as exc:
            self.add_error(None, str(exc))
        return options


class ThrottledLoginMixin:
    """Refuse a log-in before the password is checked where its account is locked or
    slowed down, or its address refused (see arena.throttling.login_refusal)."""

    def clean(self):
        username = self.cleaned_data.get("username")
        if username is not None:
            refused = throttling.login_refusal(self.request, throttling.normal_username(username))
            if refused is not None:
                message = throttling.login_refusal_text(refused)
                raise forms.ValidationError(message, code="throttled")
        return super().clean()


class ThrottledLoginForm(ThrottledLoginMixin, AuthenticationForm):
    """The dashboard's log-in form."""


class ThrottledAdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin site's log-in form: its accounts are the ones most worth guessing."""
