"""The competition pages: the list, the organiser's new and edit forms, a competition's page
(phases and countdowns, announcements, entrants, teams, division tables, the final) with the
author's enter form and the organiser's manage box, and the teams page.

Every change goes through the competition services; a refusal comes back on the input it is
about, with the page answered 400 and nothing changed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena import throttling
from arena.dashboard import tournament_page
from arena.dashboard.competition_forms import (
    AnnounceForm,
    CompetitionForm,
    EnterForm,
    GiveBotForm,
    MemberForm,
    ReasonForm,
    TeamForm,
    add_refusals,
    changed_settings,
)
from arena.dashboard.query import query_id
from arena.dashboard.views.accounts import throttled_form
from bots.models import Bot
from tournaments.models import Competition, CompetitionEntry, Team, Tournament
from tournaments.selectors import competitions as competition_selectors
from tournaments.selectors.newest_first import newest_first
from tournaments.services import competition_phases
from tournaments.services import competitions as competition_services
from tournaments.services import teams as team_services

FORM = "arena/competition_form.html"
DETAIL = "arena/competition_detail.html"
TEAMS = "arena/competition_teams.html"
BAD_INPUT = 400


def competition_list(request):
    """Competitions by opening, latest first, a page at a time."""
    page = newest_first(
        competition_selectors.competition_list(user=request.user),
        field="opens_at",
        after=query_id(request, "after"),
        before=query_id(request, "before"),
    )
    return render(request, "arena/competition_list.html", {"page": page})


@login_required
def competition_new(request):
    form = CompetitionForm(request.POST or None)
    context = {"title": "New competition"}
    # Counted with new tournaments, as the API counts new competitions.
    if refused := throttled_form(
        request, form, context, throttling.TournamentThrottle, template=FORM
    ):
        return refused
    if request.method == "POST":
        if form.is_valid():
            try:
                competition = competition_services.create_competition(
                    organiser=request.user, **form.service_settings()
                )
            except ValidationError as exc:
                form.add_refusals(exc)
            else:
                messages.success(
                    request,
                    "Competition created. Its ladder's seed commitment is "
                    f"{competition.seed_commitment}.",
                )
                return redirect("competition", pk=competition.pk)
        throttling.give_back(request)  # refused: only competitions made count
        return render(request, FORM, {"form": form, **context}, status=BAD_INPUT)
    return render(request, FORM, {"form": form, **context})


def _organised(request, pk: int) -> Competition:
    competition = get_object_or_404(Competition.objects.select_related("organiser"), pk=pk)
    if not competition_selectors.may_organise(competition=competition, user=request.user):
        raise PermissionDenied("only the organiser may manage this competition")
    return competition


@login_required
def competition_edit(request, pk):
    competition = _organised(request, pk)
    form = CompetitionForm(request.POST or None, competition=competition)
    context = {"title": f"Edit “{competition.name}”", "competition": competition}
    if request.method == "POST":
        if form.is_valid():
            try:
                competition_services.update_competition(
                    competition=competition,
                    **changed_settings(form.service_settings(), competition),
                )
            except ValidationError as exc:
                form.add_refusals(exc)
            else:
                messages.success(request, "Competition changed.")
                return redirect("competition", pk=pk)
        return render(request, FORM, {"form": form, **context}, status=BAD_INPUT)
    return render(request, FORM, {"form": form, **context})


# The phases in their order, each with the date it begins and what it means.
PHASES = (
    (Competition.Phase.OPEN, "opens_at", "Open", "Authors enter their bots; the ladder plays."),
    (
        Competition.Phase.FROZEN,
        "deadline",
        "Frozen",
        "Entries close; each entry's last valid version uploaded before the deadline counts.",
    ),
    (
        Competition.Phase.FINAL,
        "final_at",
        "Final",
        "The final tournament among the eligible entrants.",
    ),
    (Competition.Phase.CLOSED, "closed_at", "Closed", "The final is over."),
)


def _phases(competition: Competition, now) -> list[dict]:
    order = [phase for phase, *_ in PHASES]
    current = order.index(competition.phase)
    rows = []
    for index, (phase, field, label, meaning) in enumerate(PHASES):
        when = getattr(competition, field)
        rows.append(
            {
                "phase": phase,
                "label": label,
                "meaning": meaning,
                "when": when,
                "current": index == current,
                "past": index < current,
                # The current phase counts down only to an opening still to come.
                "future": when is not None
                and when > now
                and (index > current or (index == current and phase == Competition.Phase.OPEN)),
            }
        )
    return rows


def _my_bots(competition: Competition, user):
    """The bots ``user`` may enter: their own of the game and their team's, not entered."""
    if not user.is_authenticated:
        return Bot.objects.none()
    entered = CompetitionEntry.objects.filter(competition=competition).values("bot_id")
    team_bots = Team.objects.filter(competition=competition, members__user=user).values("bots")
    return (
        Bot.objects.filter(Q(owner=user) | Q(pk__in=team_bots), game=competition.game)
        .exclude(pk__in=entered)
        .order_by("name")
    )


def _results(competition: Competition, user) -> dict:
    """The division tables as the release lets ``user`` see them, points as the
    tournament pages write them (halves as ½)."""
    results = competition_selectors.competition_results(competition=competition, user=user)
    for division in results["divisions"]:
        for row in division["rows"]:
            row["points_shown"] = tournament_page.points_text(float(row["points"]))
    return results


def _final_context(competition: Competition, request, results_shown: bool) -> dict | None:
    final = competition.final
    if final is None:
        return None
    if not results_shown:
        return {"final": final, "hidden": True}
    context = tournament_page.tournament_context(final, params=request.GET, user=request.user)
    # The tournament page's own live part (standings, bracket or rounds, matches), polling
    # the tournament's live address while it plays.
    html = render_to_string("arena/tournament_live.html", context, request=request)
    return {"final": final, "hidden": False, "page": context, "html": html}


def _archive_offered(competition: Competition, detail: dict) -> bool:
    """Whether the archive's address answers the reader (tournaments.archive.export's
    archive_for): closed, results shown to them, and a final whose whole records its
    organiser shows to the owners alone only for the organiser and staff."""
    if competition.phase != Competition.Phase.CLOSED or not detail["results_visible"]:
        return False
    final = competition.final
    owners_only = (
        final is not None and final.record_visibility == Tournament.RecordVisibility.OWNERS
    )
    return not owners_only or detail["may_organise"]


def _detail_context(request, competition: Competition, **forms) -> dict:
    user = request.user
    now = timezone.now()
    detail = competition_selectors.competition_detail(competition=competition, user=user)
    organiser = detail["may_organise"]
    entries = competition_selectors.competition_entrants(competition=competition, user=user)
    my_bots = _my_bots(competition, user)
    invite = competition.eligibility == Competition.Eligibility.INVITE
    may_enter = (
        user.is_authenticated
        and competition.phase == Competition.Phase.OPEN
        and competition.deadline > now
    )
    teams = competition_selectors.competition_teams(competition=competition)
    context = {
        "competition": competition,
        "now": now,
        "phases": _phases(competition, now),
        "organiser": organiser,
        "results": _results(competition, user),
        "seed_shown": competition_selectors.seed_shown(competition=competition, user=user),
        "entries": entries,
        "pending": [e for e in entries if e["status"] == CompetitionEntry.Status.PENDING],
        # A pending entry is refused, not disqualified: the accepted ones may be.
        "standing": [e for e in entries if e["status"] == CompetitionEntry.Status.ACCEPTED],
        "teams": teams,
        "announcements": competition_selectors.competition_announcements(competition=competition)[
            :20
        ],
        "final": _final_context(competition, request, detail["results_visible"]),
        # The archive anyone who sees the results may download and verify, once closed.
        "archive_offered": _archive_offered(competition, detail),
        "results_visible": detail["results_visible"],
        "may_enter": may_enter,
        "has_bots": may_enter and my_bots.exists(),
        "my_team": detail["team"],
    }
    if forms.get("enter_form") is not None:  # a refused entry, shown with its refusal
        context["enter_form"] = forms["enter_form"]
    elif may_enter:
        context["enter_form"] = EnterForm(bots=my_bots, invite=invite)
    if organiser:
        context["announce_form"] = forms.get("announce_form") or AnnounceForm()
        context["reason_form"] = forms.get("reason_form")
        context["reason_action"] = forms.get("reason_action")
    return context


def _my_team(competition: Competition, user) -> Team | None:
    if not user.is_authenticated:
        return None
    return competition.teams.filter(members__user=user).first()


def competition_detail(request, pk):
    competition = get_object_or_404(Competition.objects.select_related("organiser", "final"), pk=pk)
    return render(request, DETAIL, _detail_context(request, competition))


@login_required
@require_POST
def competition_enter(request, pk):
    competition = get_object_or_404(Competition.objects.select_related("organiser"), pk=pk)
    invite = competition.eligibility == Competition.Eligibility.INVITE
    form = EnterForm(request.POST, bots=_my_bots(competition, request.user), invite=invite)
    if form.is_valid():
        bot = form.cleaned_data["bot"]
        team = Team.objects.filter(
            competition=competition, bots=bot, members__user=request.user
        ).first()
        try:
            entry = competition_services.enter_competition(
                competition=competition,
                bot=bot,
                user=request.user,
                invite_code=form.cleaned_data.get("invite_code", ""),
                team=team,
            )
        except ValidationError as exc:
            add_refusals(form, exc)
        except PermissionDenied as exc:
            form.add_error("invite_code" if invite else None, str(exc) or "You may not enter")
        else:
            if entry.status == CompetitionEntry.Status.PENDING:
                messages.success(
                    request, f"{bot.name} entered: it waits for the organiser's approval."
                )
            else:
                messages.success(request, f"{bot.name} entered.")
            return redirect("competition", pk=pk)
    context = _detail_context(request, competition, enter_form=form)
    return render(request, DETAIL, context, status=BAD_INPUT)


def _entry_of(competition: Competition, raw) -> CompetitionEntry | None:
    try:
        return CompetitionEntry.objects.get(competition=competition, pk=int(raw))
    except (TypeError, ValueError, CompetitionEntry.DoesNotExist):
        return None


MANAGE_SAID = {
    "accept": "Entry accepted.",
    "refuse": "Entry refused.",
    "disqualify": "Entry disqualified.",
    "pause": "Competition paused: no phase changes and no new ladder matches until resumed.",
    "resume": "Competition resumed.",
    "reveal": "Results revealed to everyone.",
    "release": "Who sees the results changed.",
    "announce": "Announcement published.",
}


@login_required
@require_POST
def competition_manage(request, pk):
    """The organiser's actions: accept or refuse an entry, disqualify one with a reason,
    pause or resume, set who sees results or reveal them, announce."""
    competition = _organised(request, pk)
    action = request.POST.get("action", "")
    try:
        refused = _manage(request, competition, action)
    except ValidationError as exc:
        # A refusal of the state (the entry decided already, entries closed): said on top.
        messages.error(request, " ".join(exc.messages))
        refused = {}
    if refused is not None:
        competition.refresh_from_db()
        context = _detail_context(request, competition, **refused)
        return render(request, DETAIL, context, status=BAD_INPUT)
    messages.success(request, MANAGE_SAID.get(action, "Done."))
    return redirect(reverse("competition", args=[pk]) + "#manage")


def _manage(request, competition: Competition, action: str) -> dict | None:
    """Do ``action``; the forms to show again when refused, else None."""
    if action in ("accept", "refuse", "disqualify"):
        return _decide(request, competition, action)
    if action in ("pause", "resume"):
        competition_phases.set_competition_paused(competition=competition, paused=action == "pause")
        return None
    if action == "reveal":
        competition_services.reveal_results(competition=competition)
        return None
    if action == "release":
        level = request.POST.get("release", "")
        if level not in Competition.Release.values:
            raise ValidationError("Pick who sees the results: hidden, participants or public")
        competition_services.set_release(competition=competition, release=level)
        return None
    if action == "announce":
        form = AnnounceForm(request.POST)
        if not form.is_valid():
            return {"announce_form": form}
        try:
            competition_services.announce(competition=competition, text=form.cleaned_data["text"])
        except ValidationError as exc:
            add_refusals(form, exc)
            return {"announce_form": form}
        return None
    raise ValidationError("Pick one of the page's buttons")


def _decide(request, competition: Competition, action: str) -> dict | None:
    entry = _entry_of(competition, request.POST.get("entry"))
    if entry is None:
        raise ValidationError("That entry is not in this competition any more: reload the page")
    if action == "accept":
        competition_services.decide_entry(entry=entry, accept=True)
        return None
    form = ReasonForm(request.POST)
    if not form.is_valid():
        return {"reason_form": form, "reason_action": action}
    reason = form.cleaned_data["reason"]
    try:
        if action == "refuse":
            competition_services.decide_entry(entry=entry, accept=False, reason=reason)
        else:
            competition_services.disqualify_entry(entry=entry, reason=reason)
    except ValidationError as exc:
        add_refusals(form, exc)
        return {"reason_form": form, "reason_action": action}
    return None


def _teams_context(request, competition: Competition, **forms) -> dict:
    user = request.user
    mine = _my_team(competition, user)
    own_bots = Bot.objects.none()
    if mine is not None:
        own_bots = (
            Bot.objects.filter(owner=user, game=competition.game)
            .exclude(pk__in=mine.bots.values("pk"))
            .order_by("name")
        )
    context = {
        "competition": competition,
        "teams": competition_selectors.competition_teams(competition=competition),
        "my_team": mine,
        "creator": mine is not None and mine.created_by_id == user.id,
        "my_team_members": mine.members.select_related("user") if mine is not None else [],
    }
    if user.is_authenticated and mine is None:
        context["team_form"] = forms.get("team_form") or TeamForm()
    if context["creator"]:
        context["member_form"] = forms.get("member_form") or MemberForm()
        context["give_form"] = forms.get("give_form") or GiveBotForm(bots=own_bots)
    return context


def competition_teams(request, pk):
    competition = get_object_or_404(Competition.objects.select_related("organiser"), pk=pk)
    if request.method != "POST":
        return render(request, TEAMS, _teams_context(request, competition))
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={request.path}")
    refused = _team_action(request, competition, request.POST.get("action", ""))
    if refused is not None:
        return render(request, TEAMS, _teams_context(request, competition, **refused), status=400)
    return redirect("competition-teams", pk=pk)


def _team_action(request, competition: Competition, action: str) -> dict | None:
    user = request.user
    mine = _my_team(competition, user)
    if action == "create":
        form = TeamForm(request.POST)
        if form.is_valid():
            try:
                team = team_services.create_team(
                    competition=competition, name=form.cleaned_data["name"], user=user
                )
            except ValidationError as exc:
                add_refusals(form, exc)
            else:
                messages.success(request, f"Team “{team.name}” created: add its members.")
                return None
        return {"team_form": form}
    if mine is None:
        raise PermissionDenied("only a team's members may change it")
    if action == "add":
        form = MemberForm(request.POST)
        if form.is_valid():
            if mine.created_by_id != user.id:
                raise PermissionDenied("only the team's creator adds members")
            person = _person_named(form)
            if person is not None:
                try:
                    team_services.add_team_member(team=mine, user=person, by=user)
                except ValidationError as exc:
                    add_refusals(form, exc)
                else:
                    messages.success(request, f"{person.username} joined “{mine.name}”.")
                    return None
        return {"member_form": form}
    if action == "give":
        bots = Bot.objects.filter(owner=user, game=competition.game)
        form = GiveBotForm(request.POST, bots=bots)
        if form.is_valid():
            bot = form.cleaned_data["bot"]
            try:
                team_services.give_bot_to_team(team=mine, bot=bot, by=user)
            except ValidationError as exc:
                add_refusals(form, exc)
            else:
                messages.success(request, f"{bot.name} now belongs to “{mine.name}” too.")
                return None
        return {"give_form": form}
    if action == "remove":
        form = MemberForm(request.POST)
        if form.is_valid():
            person = _person_named(form)
            if person is not None:
                try:
                    team_services.remove_team_member(team=mine, user=person, by=user)
                except ValidationError as exc:
                    add_refusals(form, exc)
                else:
                    left = "You left" if person == user else f"{person.username} left"
                    messages.success(request, f"{left} “{mine.name}”.")
                    return None
        return {"member_form": form}
    raise PermissionDenied("pick one of the page's buttons")


def _person_named(form: MemberForm):
    """The user the member form names (any case), or None with the form's error saying so."""
    name = form.cleaned_data["username"].strip()
    person = get_user_model().objects.filter(username__iexact=name).first()
    if person is None:
        form.add_error("username", f"Nobody is called {name}: check the spelling")
    return person
