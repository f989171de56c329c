"""Forms of the dashboard. They only parse; the services decide."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from arena import throttling
from bots.models import Bot
from games import registry
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
    """Checkboxes that carry their bot's game, name, owner and entry policy, so the page
    can offer only the bots of the chosen game and search and filter them (the server
    checks everything again)."""

    organiser_id: int | None = None

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        bot = getattr(value, "instance", None)
        if bot is not None:
            option["attrs"].update(
                {
                    "data-game": bot.game,
                    "data-name": bot.name,
                    "data-owner": bot.owner.username,
                    "data-mine": "1" if bot.owner_id == self.organiser_id else "0",
                    "data-accepts": "1" if bot.accepts_entries else "0",
                }
            )
        return option


class BotField(forms.ModelMultipleChoiceField):
    """Bots by name, each with its owner (a class's bots are told apart by their owners)."""

    organiser_id: int | None = None

    def label_from_instance(self, obj):
        owner = "you" if obj.owner_id == self.organiser_id else obj.owner.username
        return format_html(
            '<span class="bot-label"><span class="bot-name">{}</span> '
            '<span class="bot-owner">by {}</span></span>',
            obj.name,
            owner,
        )


def pasted_names(text: str) -> list[str]:
    """The names in a pasted list: one a line or separated by commas, semicolons or
    spaces (bot names and usernames hold none of those), in order, each once."""
    return list(dict.fromkeys(n for n in re.split(r"[\s,;]+", text) if n))


def plain_number_messages(field: forms.Field, label: str) -> None:
    """Django's stock refusals of a number ("Ensure this value is greater than or equal
    to 1.") in words that name the input and say what to give."""
    field.error_messages.update(
        {
            "invalid": f"{label} must be a whole number",
            "min_value": f"{label} must be %(limit_value)s or more",
            "max_value": f"{label} must be %(limit_value)s or less",
        }
    )


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
            error_messages={
                "invalid_choice": f"{label} must be one of "
                f"{', '.join(map(str, option.choices))}: pick one of those"
            },
        )
    if isinstance(default, int):
        field = forms.IntegerField(
            required=False,
            initial=default,
            min_value=option.minimum,
            max_value=option.maximum,
            label=label,
            help_text=help_text,
        )
        plain_number_messages(field, label)
        return field
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


# The format's settings that tournaments and competitions' finals ask alike.
def rotate_seats_field() -> forms.BooleanField:
    return forms.BooleanField(
        required=False, initial=True, help_text="Every bot plays every seat of each deal"
    )


def advance_field() -> forms.IntegerField:
    return forms.IntegerField(
        min_value=1,
        max_value=15,
        initial=1,
        required=False,
        label="Go through per table",
        help_text="With 3 or more players per match: how many of each table go through",
    )


def third_place_field() -> forms.BooleanField:
    return forms.BooleanField(
        required=False, label="Third place", help_text="A series for third place"
    )


def grand_final_reset_field() -> forms.BooleanField:
    return forms.BooleanField(
        required=False,
        initial=True,
        label="Grand-final reset",
        help_text="A second final if the losers' bracket champion wins the first",
    )


class GameOptionInputs:
    """Every game's option inputs on one form, so that it works without scripts; only the
    chosen game's are read."""

    def add_game_option_inputs(self, saved_game: str | None, saved_options: dict) -> None:
        """Adds the inputs; an edited object's game shows its saved options."""
        self.option_fields: dict[str, list[str]] = {}
        for slug in registry.slugs():
            names = []
            for name, option in registry.get(slug).options.items():
                field_name = option_field_name(slug, name)
                self.fields[field_name] = option_form_field(name, option)
                if saved_game == slug:
                    self.initial[field_name] = saved_options.get(name, option.default)
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

    def read_game_options(self, data: dict) -> None:
        """Puts the chosen game's options in ``data["options"]``. An input of another game
        is not read: its errors do not count either."""
        game = data.get("game")
        for slug, names in self.option_fields.items():
            if slug != game:
                for name in names:
                    self._errors.pop(name, None)
                    data.pop(name, None)
        if game:
            data["options"] = self._options_of(game, data)

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
        return options  # checked by the service, whose refusals come back to each input


class TournamentForm(GameOptionInputs, forms.Form):
    name = forms.CharField(
        max_length=100,
        error_messages={
            "required": "Give the tournament a name",
            "max_length": "Keep the name to %(limit_value)d characters (it has %(show_value)d)",
        },
    )
    game = forms.ChoiceField(
        choices=game_choices,
        error_messages={"required": "Pick a game", "invalid_choice": "Pick a game of the list"},
    )
    bots = BotField(
        queryset=Bot.objects.none(),
        widget=BotChoices,
        required=False,
        help_text="Entrants: bots of the chosen game with an active version, your own and "
        "other people's that accept entries",
        error_messages={
            "invalid_choice": "A bot picked cannot be entered any more (deleted, or its "
            "owner closed entries): pick the bots again",
            "invalid_pk_value": "Pick bots from the list",
        },
    )
    bot_list = forms.CharField(
        required=False,
        max_length=20000,
        label="Or paste bot names or owners",
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One a line, or separated by commas: a bot's name enters that bot; an "
        "owner's username enters each of their bots of this game that you may enter",
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
    rotate_seats = rotate_seats_field()
    rounds = forms.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        help_text="Empty: enough rounds to separate the field (log2 of the entrants rounded up, plus one: 4 for 7 or 8)",
    )
    challengers = BotField(
        queryset=Bot.objects.none(),
        required=False,
        widget=BotChoices,
        help_text="The entrants who play everyone else (at least one)",
        error_messages={
            "invalid_choice": "Pick challengers among the entrants",
            "invalid_pk_value": "Pick challengers from the list",
        },
    )
    advance = advance_field()
    third_place = third_place_field()
    grand_final_reset = grand_final_reset_field()
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
        error_messages={"invalid": "Give a date and a time, such as 2030-01-02 09:30"},
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text="Empty: now; not in the past. Read as UTC (your browser names its own zone when "
        "scripts run).",
    )
    time_zone = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(self, *args, organiser, tournament: Tournament | None = None, **kwargs):
        self.tournament = tournament
        if tournament is not None:
            kwargs.setdefault("initial", initial_of(tournament))
        super().__init__(*args, **kwargs)
        if tournament is not None and not self.is_bound:
            # Shown as UTC; the page's script turns it into the browser's own time.
            self.fields["start_at"].widget.attrs["data-utc"] = "1"
        enterable = Q(owner=organiser) | Q(accepts_entries=True)
        if tournament is not None:  # its entrants stay offered, whatever their policy now
            enterable |= Q(entries__tournament=tournament)
        bots = Bot.objects.filter(enterable).distinct().select_related("owner")
        for name in ("bots", "challengers"):
            self.fields[name].queryset = bots.order_by("game", "name")
            self.fields[name].organiser_id = organiser.pk
            self.fields[name].widget.organiser_id = organiser.pk
        for name, field in self.fields.items():
            if isinstance(field, forms.IntegerField):
                plain_number_messages(field, field.label or name.replace("_", " ").capitalize())
        self.add_game_option_inputs(
            tournament.game if tournament is not None else None,
            tournament.options if tournament is not None else {},
        )

    def clean(self):
        data = super().clean()
        game = data.get("game")
        self.read_game_options(data)
        if game:
            self._add_pasted_bots(game, data)
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
                kept = self.tournament.start_at if self.tournament is not None else None
                if kept is not None and data["start_at"] == kept.replace(second=0, microsecond=0):
                    data["start_at"] = kept  # shown to the minute, sent back unchanged
                elif refusal := scheduling.past_start_refusal(data["start_at"]):
                    self.add_error("start_at", refusal)
        return data

    def _add_pasted_bots(self, game: str, data: dict) -> None:
        """The bots named in the pasted list (by their names or their owners') join the
        ticked ones, in the list's order after them."""
        names = pasted_names(data.get("bot_list") or "")
        if not names:
            return
        offered = self.fields["bots"].queryset.filter(game=game)
        by_name = {bot.name.lower(): bot for bot in offered}
        by_owner: dict[str, list[Bot]] = {}
        for bot in offered:
            by_owner.setdefault(bot.owner.username.lower(), []).append(bot)
        picked = list(data.get("bots") or [])
        unknown = []
        for name in names:
            found = by_name.get(name.lower())
            found = [found] if found else by_owner.get(name.lower())
            if not found:
                unknown.append(name)
            picked.extend(bot for bot in found or [] if bot not in picked)
        if unknown:
            title = registry.get(game).title
            shown = ", ".join(unknown[:5]) + (
                f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
            )
            self.add_error(
                "bot_list",
                f"No bot or owner of a {title} bot you may enter is named {shown}: check the "
                "spelling, or leave them out",
            )
        data["bots"] = picked

    # Where the service's refusals go: a game option's to its input, the rest by name.
    def add_refusals(self, exc: ValidationError) -> None:
        """Show a refusal of the services beside the inputs it is about."""
        if not hasattr(exc, "error_dict"):
            self.add_error(None, exc)
            return
        game = self.cleaned_data.get("game", "")
        for field, errors in exc.error_dict.items():
            name = field
            if field.startswith("options."):
                name = option_field_name(game, field.removeprefix("options."))
            if name not in self.fields or name == "options":
                name = None
            self.add_error(name, errors)

    def error_summary(self) -> list[dict]:
        """Every refusal in the order the page shows its inputs, with the input's id."""
        game = self.data.get("game", "")
        order = [*self.PAGE_ORDER[:-1], *self.option_fields.get(game, []), "start_at"]
        order += [name for name in self.errors if name not in order]
        summary = []
        for name in order:
            for message in self.errors.get(name, []):
                if name == "__all__":
                    summary.append({"id": "", "label": "", "message": message})
                else:
                    field = self[name]
                    target = (
                        "bots-field"
                        if name == "bots"
                        else ("challengers-field" if name == "challengers" else field.auto_id)
                    )
                    label = field.label or name
                    if str(message).lower().startswith(label.lower()):
                        label = ""  # the message names its input already
                    summary.append({"id": target, "label": label, "message": message})
        return summary

    # The inputs in the order the page shows them (start_at last, after the game options).
    PAGE_ORDER = (
        "__all__",
        "name",
        "game",
        "bots",
        "bot_list",
        "format",
        "rounds",
        "challengers",
        "third_place",
        "grand_final_reset",
        "advance",
        "seeding",
        "players_per_match",
        "games_per_pairing",
        "rotate_seats",
        "move_ms",
        "bank_ms",
        "rated",
        "record_visibility",
        "start_at",
    )


def initial_of(tournament: Tournament) -> dict:
    """The edit form's values: the tournament's settings as they are."""
    bots = [e.bot_id for e in tournament.entries.order_by("id")]
    return {
        "name": tournament.name,
        "game": tournament.game,
        "bots": bots,
        "challengers": [e.bot_id for e in tournament.entries.filter(challenger=True)],
        "format": tournament.format,
        "seeding": tournament.seeding,
        "players_per_match": tournament.players_per_match,
        "games_per_pairing": tournament.games_per_pairing,
        "rotate_seats": tournament.rotate_seats,
        "rounds": tournament.rounds,
        "advance": tournament.advance,
        "third_place": tournament.third_place,
        "grand_final_reset": tournament.grand_final_reset,
        "move_ms": tournament.move_ms,
        "bank_ms": tournament.bank_ms,
        "rated": tournament.rated,
        "record_visibility": tournament.record_visibility,
        "start_at": tournament.start_at.astimezone(UTC).replace(tzinfo=None),
    }


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
