"""Forms of the competition pages. They only parse; the competition services decide, and
their refusals come back beside the inputs they are about."""

from __future__ import annotations

from datetime import UTC

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from arena.dashboard.forms import (
    GameOptionInputs,
    advance_field,
    game_choices,
    grand_final_reset_field,
    local_to_utc,
    option_field_name,
    plain_number_messages,
    rotate_seats_field,
    third_place_field,
)
from games import registry
from tournaments.models import Competition, Tournament

DATE_WIDGET = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
DATE_INVALID = {"invalid": "Give a date and a time, such as 2030-01-02 09:30"}
# The final tournament's settings the form offers (create_tournament's keywords); the
# competition's pool gives the game, options, players and clocks.
FINAL_SETTINGS = (
    "format",
    "games_per_pairing",
    "rotate_seats",
    "rounds",
    "advance",
    "third_place",
    "grand_final_reset",
)
# The competition's own fields handed to the services as they are.
COMPETITION_SETTINGS = (
    "name",
    "description",
    "game",
    "players",
    "options",
    "move_ms",
    "bank_ms",
    "opens_at",
    "deadline",
    "final_at",
    "release",
    "ladder_hidden_from",
    "eligibility",
    "invite_code",
    "division_size",
    "promote",
    "cycle_minutes",
)
RELEASE_CHOICES = [
    (Competition.Release.PUBLIC, "public: everyone sees results as they come"),
    (Competition.Release.PARTICIPANTS, "participants: only the entrants' owners and teams"),
    (Competition.Release.HIDDEN, "hidden: nobody but you until you reveal them"),
]
ELIGIBILITY_CHOICES = [
    (Competition.Eligibility.OPEN, "open: any bot of the game enters at once"),
    (Competition.Eligibility.INVITE, "invite: entrants give the invite code"),
    (Competition.Eligibility.APPROVAL, "approval: you accept or refuse each entry"),
]


def _date_field(label: str, help_text: str, required: bool = True) -> forms.DateTimeField:
    return forms.DateTimeField(
        required=required,
        label=label,
        help_text=help_text,
        widget=DATE_WIDGET,
        error_messages={**DATE_INVALID, "required": f"Give the {label.lower()}"},
    )


class CompetitionForm(GameOptionInputs, forms.Form):
    name = forms.CharField(
        max_length=100,
        error_messages={
            "required": "Give the competition a name",
            "max_length": "Keep the name to %(limit_value)d characters (it has %(show_value)d)",
        },
    )
    description = forms.CharField(
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="What the competition is, for whom, its prizes: shown on its page",
    )
    game = forms.ChoiceField(
        choices=game_choices,
        error_messages={"required": "Pick a game", "invalid_choice": "Pick a game of the list"},
    )
    players = forms.IntegerField(
        min_value=1,
        max_value=16,
        required=False,
        label="Players per match",
        help_text="Empty: the game's fewest",
    )
    move_ms = forms.IntegerField(
        min_value=10, max_value=60000, initial=1000, label="Move time (ms)"
    )
    bank_ms = forms.IntegerField(
        min_value=0, max_value=600000, initial=10000, label="Time bank (ms)"
    )
    opens_at = _date_field("Opening", "Entries and the ladder start (empty: now)", required=False)
    deadline = _date_field(
        "Deadline",
        "Entries close and each entry's last valid version uploaded before it is the one that counts",
    )
    final_at = _date_field("Final", "The final tournament among the eligible entrants starts")
    format = forms.ChoiceField(
        choices=Tournament.Format.choices,
        initial=Tournament.Format.ROUND_ROBIN,
        label="Final's format",
    )
    games_per_pairing = forms.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        help_text="Games per pairing or series in the final (empty: one game per seat rotation)",
    )
    rotate_seats = rotate_seats_field()
    rounds = forms.IntegerField(
        min_value=1, max_value=100, required=False, help_text="Empty: enough to separate the field"
    )
    advance = advance_field()
    third_place = third_place_field()
    grand_final_reset = grand_final_reset_field()
    release = forms.ChoiceField(
        choices=RELEASE_CHOICES,
        initial=Competition.Release.PUBLIC,
        label="Results shown",
        help_text="Who sees the final's results (and the ladder's from the time below) until "
        "you reveal them; you and staff always see them",
    )
    ladder_hidden_from = _date_field(
        "Ladder hidden from",
        "From this time the ladder's results are held back like the final's (empty: the "
        "ladder stays public)",
        required=False,
    )
    eligibility = forms.ChoiceField(
        choices=ELIGIBILITY_CHOICES, initial=Competition.Eligibility.OPEN, label="Who may enter"
    )
    invite_code = forms.CharField(
        required=False,
        max_length=64,
        help_text="With invite: the code you give the people you invite",
    )
    division_size = forms.IntegerField(
        min_value=2,
        max_value=1000,
        required=False,
        help_text="Bots per division of the ladder (empty: everyone in one table)",
    )
    promote = forms.IntegerField(
        min_value=1,
        max_value=100,
        initial=1,
        label="Promoted and relegated",
        help_text="How many go up from the top and down from the bottom of a division each cycle",
    )
    cycle_minutes = forms.IntegerField(
        min_value=1,
        max_value=60 * 24 * 60,
        initial=60,
        label="Cycle (minutes)",
        help_text="How long the ladder plays before divisions change",
    )
    time_zone = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    DATES = ("opens_at", "deadline", "final_at", "ladder_hidden_from")

    def __init__(self, *args, competition: Competition | None = None, **kwargs):
        self.competition = competition
        if competition is not None:
            kwargs.setdefault("initial", initial_of(competition))
        super().__init__(*args, **kwargs)
        if competition is not None and not self.is_bound:
            for name in self.DATES:  # shown as UTC; the page's script turns them local
                self.fields[name].widget = forms.DateTimeInput(
                    attrs={"type": "datetime-local", "data-utc": "1"}, format="%Y-%m-%dT%H:%M"
                )
        for name, field in self.fields.items():
            if isinstance(field, forms.IntegerField):
                plain_number_messages(field, field.label or name.replace("_", " ").capitalize())
        self.add_game_option_inputs(
            competition.game if competition is not None else None,
            competition.options if competition is not None else {},
        )

    def clean(self):
        data = super().clean()
        game = data.get("game")
        self.read_game_options(data)
        if game:
            if data.get("players") is None and "players" not in self._errors:
                data["players"] = registry.get(game).min_players
        zone = data.get("time_zone", "")
        for name in self.DATES:
            value = data.get(name)
            if value is None or name in self._errors:
                continue
            try:
                data[name] = self._kept_or_utc(name, local_to_utc(value, zone))
            except ValueError as exc:
                self.add_error(name, str(exc))
        if data.get("opens_at") is None and "opens_at" not in self._errors:
            kept = self.competition.opens_at if self.competition is not None else None
            data["opens_at"] = kept or timezone.now()
        if data.get("advance") is None:
            data["advance"] = 1
        if (
            data.get("eligibility") == Competition.Eligibility.INVITE
            and not (data.get("invite_code") or "").strip()
        ):
            self.add_error("invite_code", "Give an invite code, or let anyone enter")
        return data

    def _kept_or_utc(self, name: str, value):
        """A stored date shown to the minute and sent back unchanged keeps its seconds."""
        kept = getattr(self.competition, name, None) if self.competition is not None else None
        if kept is not None and value == kept.replace(second=0, microsecond=0):
            return kept
        return value

    def service_settings(self) -> dict:
        """The competition's settings as the services take them."""
        data = self.cleaned_data
        settings = {name: data[name] for name in COMPETITION_SETTINGS}
        settings["invite_code"] = (settings["invite_code"] or "").strip()
        settings["final_settings"] = self.final_settings()
        return settings

    def final_settings(self) -> dict:
        return final_settings_of(self.cleaned_data)

    def add_refusals(self, exc: ValidationError) -> None:
        """A refusal of the services beside the input it is about (a final setting as
        ``final_settings.<name>`` or by its own name, a game option as ``options.<name>``)."""
        add_refusals(self, exc, game=self.cleaned_data.get("game", ""))

    # The inputs in the order the page shows them, for the summary of refusals.
    PAGE_ORDER = (
        "__all__",
        "name",
        "description",
        "game",
        "players",
        "move_ms",
        "bank_ms",
        "opens_at",
        "deadline",
        "final_at",
        "format",
        "rounds",
        "third_place",
        "grand_final_reset",
        "advance",
        "games_per_pairing",
        "rotate_seats",
        "release",
        "ladder_hidden_from",
        "eligibility",
        "invite_code",
        "division_size",
        "promote",
        "cycle_minutes",
    )

    def error_summary(self) -> list[dict]:
        game = self.data.get("game", "")
        order = [*self.PAGE_ORDER, *self.option_fields.get(game, [])]
        order += [name for name in self.errors if name not in order]
        summary = []
        for name in order:
            for message in self.errors.get(name, []):
                if name == "__all__":
                    summary.append({"id": "", "label": "", "message": message})
                    continue
                field = self[name]
                label = field.label or name
                if str(message).lower().startswith(label.lower()):
                    label = ""
                summary.append({"id": field.auto_id, "label": label, "message": message})
        return summary


def add_refusals(form: forms.Form, exc: ValidationError, *, game: str = "") -> None:
    """Put each of the services' refusals on the input it names; the rest on the form."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    for field, errors in exc.error_dict.items():
        name = field.removeprefix("final_settings.")
        if name.startswith("options."):
            name = option_field_name(game, name.removeprefix("options."))
        if name not in form.fields or name == "options":
            name = None
        form.add_error(name, errors)


def final_settings_of(data: dict) -> dict:
    """The final's settings the form's values give: only those its format reads."""
    settings = {"format": data["format"], "rotate_seats": data["rotate_seats"]}
    if data.get("games_per_pairing") is not None:
        settings["games_per_pairing"] = data["games_per_pairing"]
    if data["format"] == Tournament.Format.SWISS and data.get("rounds") is not None:
        settings["rounds"] = data["rounds"]
    if data["format"] == Tournament.Format.SINGLE_ELIMINATION:
        settings["third_place"] = data["third_place"]
        settings["advance"] = data.get("advance") or 1
    if data["format"] == Tournament.Format.DOUBLE_ELIMINATION:
        settings["grand_final_reset"] = data["grand_final_reset"]
    return settings


def changed_settings(settings: dict, competition: Competition) -> dict:
    """Those of the form's ``settings`` that differ from what ``competition`` holds (its
    options resolved with their defaults, its final's settings as the form reads them), so
    an edit changes only what the organiser changed."""
    changed = {}
    for name, value in settings.items():
        current = getattr(competition, name)
        if name == "options":
            try:
                value_read = registry.get(settings["game"]).resolve_options(value)
            except Exception:  # the service words the refusal
                value_read = value
            if value_read == current:
                continue
        if name == "final_settings" and value == final_settings_of(initial_of(competition)):
            continue
        if value != current:
            changed[name] = value
    return changed


def initial_of(competition: Competition) -> dict:
    """The edit form's values: the competition's settings as they are, dates in UTC."""
    final = competition.final_settings or {}

    def utc(value):
        return value.astimezone(UTC).replace(tzinfo=None) if value is not None else None

    return {
        "name": competition.name,
        "description": competition.description,
        "game": competition.game,
        "players": competition.players,
        "move_ms": competition.move_ms,
        "bank_ms": competition.bank_ms,
        "opens_at": utc(competition.opens_at),
        "deadline": utc(competition.deadline),
        "final_at": utc(competition.final_at),
        "format": final.get("format", Tournament.Format.ROUND_ROBIN),
        "games_per_pairing": final.get("games_per_pairing"),
        "rotate_seats": final.get("rotate_seats", True),
        "rounds": final.get("rounds"),
        "advance": final.get("advance", 1),
        "third_place": final.get("third_place", False),
        "grand_final_reset": final.get("grand_final_reset", True),
        "release": competition.release,
        "ladder_hidden_from": utc(competition.ladder_hidden_from),
        "eligibility": competition.eligibility,
        "invite_code": competition.invite_code,
        "division_size": competition.division_size,
        "promote": competition.promote,
        "cycle_minutes": competition.cycle_minutes,
    }


class EnterForm(forms.Form):
    """An author enters one of their bots (or their team's) of the competition's game."""

    bot = forms.ModelChoiceField(
        queryset=None,
        label="Bot",
        error_messages={
            "required": "Pick one of your bots",
            "invalid_choice": "Pick one of your bots of this game from the list",
        },
    )
    invite_code = forms.CharField(
        required=False, max_length=64, help_text="The code the organiser gave you"
    )

    def __init__(self, *args, bots, invite: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bot"].queryset = bots
        self.fields["bot"].label_from_instance = lambda bot: bot.name
        if not invite:
            del self.fields["invite_code"]
        else:
            self.fields["invite_code"].error_messages["required"] = "Give the invite code"
            self.fields["invite_code"].required = True


class ReasonForm(forms.Form):
    """Why an entry is refused or disqualified: shown publicly beside it."""

    entry = forms.IntegerField(widget=forms.HiddenInput)
    reason = forms.CharField(
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": "Say why: the entrant and everyone see the reason"},
    )


class AnnounceForm(forms.Form):
    text = forms.CharField(
        max_length=5000,
        label="Announcement",
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": "Write the announcement"},
    )


class TeamForm(forms.Form):
    name = forms.CharField(
        max_length=60,
        label="Team name",
        error_messages={
            "required": "Give the team a name",
            "max_length": "Keep the name to %(limit_value)d characters (it has %(show_value)d)",
        },
    )


class MemberForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        label="Add a member by username",
        error_messages={"required": "Give the username of the person to add"},
    )


class GiveBotForm(forms.Form):
    bot = forms.ModelChoiceField(
        queryset=None,
        label="Your bot",
        error_messages={
            "required": "Pick one of your bots",
            "invalid_choice": "Pick one of your bots of this game from the list",
        },
    )

    def __init__(self, *args, bots, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bot"].queryset = bots
        self.fields["bot"].label_from_instance = lambda bot: bot.name
