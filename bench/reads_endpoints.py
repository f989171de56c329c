"""What the reads bench times: every read endpoint and page on the built data set, and the
named routes that none of them reaches (a new read view shows up there until it is added)."""

from __future__ import annotations

from urllib.parse import urlsplit

from reads_db import POOL, sql

YARDSTICK = "/api/games/"


def next_page(path: str) -> str:
    """The second page of an API list: lists page by keyset cursors (no page numbers), and
    any page costs what the second does."""
    from django.test import Client

    following = Client().get(path).json().get("next")
    return urlsplit(following)._replace(scheme="", netloc="").geturl() if following else path


def endpoints(built) -> list[tuple[str, str]]:
    """(label, url) of every read the bench times, the yardstick first (``built``:
    reads_build.Built; its ids gain the bots chosen here)."""
    from django.urls import reverse

    def one(query: str) -> int:
        return sql(query)[0][0]

    rr = 1
    swiss = 2
    knockout = 3
    long_match = built.ids["long_match"]
    rr_match = one(f"select max(id) from tournaments_match where tournament_id = {rr}")
    ladder_match = one("select max(id) from tournaments_match where ladder_id is not null")
    # The bot page's bot: in the round robin, with two versions, many rated matches.
    bot = one(
        f"select e.bot_id from tournaments_entry e join bots_botversion v on v.bot_id = e.bot_id"
        f" where e.tournament_id = {rr} and v.number = 2 order by e.bot_id limit 1"
    )
    # Its most frequent opponent, for head to head.
    other = one(
        "select o.version_id from tournaments_matchseat s join tournaments_matchseat o"
        " on o.match_id = s.match_id and o.seat <> s.seat join bots_botversion v"
        f" on v.id = s.version_id where v.bot_id = {bot} group by o.version_id"
        " order by count(*) desc limit 1"
    )
    other_bot = one(f"select bot_id from bots_botversion where id = {other}")
    owner = one(f"select owner_id from bots_bot where id = {bot}")
    ladder = one("select min(id) from tournaments_ladder")
    version = one(f"select max(id) from bots_botversion where bot_id = {bot}")
    h2h = f"a={bot}&b={other_bot}"
    built.ids.update(bot=bot, other_bot=other_bot, rr_match=rr_match, ladder_match=ladder_match)
    return [
        ("api games (yardstick)", YARDSTICK),
        ("api root", "/api/"),
        ("api leaderboard", "/api/leaderboards/pairs/"),
        ("api leaderboard ?pool", f"/api/leaderboards/pairs/?pool={POOL}"),
        ("page leaderboard", "/games/pairs/"),
        ("page leaderboard ?pool", f"/games/pairs/?pool={POOL}"),
        ("page leaderboard ?q search", "/games/pairs/?q=bench-001"),
        ("api leaderboard ?search", "/api/leaderboards/pairs/?search=bench-001"),
        ("page leaderboard ?cursor=last", "/games/pairs/?cursor=last"),
        ("api tournaments", "/api/tournaments/"),
        ("api tournaments ?game", "/api/tournaments/?game=pairs"),
        ("api tournaments ?status", "/api/tournaments/?status=finished"),
        ("api tournaments ?game&status", "/api/tournaments/?game=pairs&status=finished"),
        ("api tournament round robin", f"/api/tournaments/{rr}/"),
        ("api tournament Swiss", f"/api/tournaments/{swiss}/"),
        ("api tournament knockout", f"/api/tournaments/{knockout}/"),
        ("api tournament matches", f"/api/tournaments/{rr}/matches/"),
        ("api tournament matches, next page", next_page(f"/api/tournaments/{rr}/matches/")),
        ("page tournaments", "/tournaments/"),
        ("page tournament round robin", f"/tournaments/{rr}/"),
        ("page tournament rr ?after=0 (oldest)", f"/tournaments/{rr}/?after=0"),
        ("page tournament rr live part", f"/tournaments/{rr}/live/"),
        ("page tournament Swiss", f"/tournaments/{swiss}/"),
        ("page tournament knockout", f"/tournaments/{knockout}/"),
        ("api match (round robin)", f"/api/matches/{rr_match}/"),
        ("api match (ladder)", f"/api/matches/{ladder_match}/"),
        ("api match (long Paks)", f"/api/matches/{long_match}/"),
        ("api replay long", f"/api/matches/{long_match}/replay/"),
        ("api replay long ?seat=0", f"/api/matches/{long_match}/replay/?seat=0"),
        ("api frames long ?seat=0", f"/api/matches/{long_match}/frames/?seat=0"),
        ("api frames long (spectator)", f"/api/matches/{long_match}/frames/"),
        ("page match long", f"/matches/{long_match}/"),
        ("page match long ?seat=1", f"/matches/{long_match}/?seat=1"),
        ("page match (round robin)", f"/matches/{rr_match}/"),
        ("api bots", "/api/bots/"),
        ("api bots ?game", "/api/bots/?game=pairs"),
        ("api bots ?owner", f"/api/bots/?owner={owner}"),
        ("api bots, next page", next_page("/api/bots/")),
        ("api leaderboard, next page", next_page("/api/leaderboards/pairs/")),
        ("api bot", f"/api/bots/{bot}/"),
        ("api bot versions", f"/api/bots/{bot}/versions/"),
        ("api version", f"/api/versions/{version}/"),
        ("api bot ratings", f"/api/bots/{bot}/ratings/"),
        ("api bot ratings ?pool", f"/api/bots/{bot}/ratings/?pool={POOL}"),
        ("api bot gating", f"/api/bots/{bot}/gating/"),
        ("page bots", "/bots/"),
        ("page bots ?q search", "/bots/?q=bench-0042"),
        ("page bots ?after (a middle page)", "/bots/?after=bench-05000"),
        ("page bot names ?q (head-to-head datalist)", "/games/pairs/bot-names/?q=bench-01"),
        ("page bot", f"/bots/{bot}/"),
        ("page bot ?cancelled=1", f"/bots/{bot}/?cancelled=1"),
        ("api head-to-head", f"/api/head-to-head/?{h2h}"),
        ("page head-to-head", f"/games/pairs/head-to-head/?{h2h}"),
        ("api ladders", "/api/ladders/"),
        ("api ladder", f"/api/ladders/{ladder}/"),
        ("api ladder matches", f"/api/ladders/{ladder}/matches/"),
        ("page ladders", "/ladders/"),
        ("page ladder", f"/ladders/{ladder}/"),
        ("page ladder ?after=0 (oldest)", f"/ladders/{ladder}/?after=0"),
        ("page ladder live part", f"/ladders/{ladder}/live/"),
        ("page home", reverse("home")),
        ("api game pairs", "/api/games/pairs/"),
        ("page rules pairs", "/games/pairs/rules/"),
    ]


# Routes that write, need a login or serve no data: not read endpoints.
NOT_READS = {
    "api-register",
    "api-token",
    "api-tournament-cancel",
    "api-ladder-pause",
    "api-ladder-resume",
    "api-match-seat-log",  # the owner's alone
    "api-version-source",  # the owner's alone
    "api-schema",
    "api-docs",
    "bot-new",
    "bot-upload",
    "bot-entries",
    "bot-gating",
    "bot-current",
    "tournament-new",
    "tournament-cancel",
    "signup",
    "login",
    "logout",
}


def uncovered_routes(urls: list[str]) -> list[str]:
    """Named routes of the project that no timed URL resolves to (new views show up here)."""
    from django.urls import get_resolver, resolve

    covered = {resolve(urlsplit(url).path).url_name for url in urls}

    def names(resolver, prefix=""):
        for pattern in resolver.url_patterns:
            if hasattr(pattern, "url_patterns"):
                if str(pattern.pattern).startswith("admin/"):
                    continue
                yield from names(pattern, prefix + str(pattern.pattern))
            elif pattern.name:
                yield pattern.name, prefix + str(pattern.pattern)

    return sorted(
        f"{name} ({route})"
        for name, route in names(get_resolver())
        if name not in covered and name not in NOT_READS
    )
