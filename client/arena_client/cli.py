"""Upload bots, challenge, follow challenges and tournaments, fetch match logs and records.

Tables for people, ``--json`` for scripts; the exit codes are :data:`EXIT`."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import platform
import secrets
import sys
import time
from pathlib import Path

from arena_client import __version__
from arena_client.api import Api, ApiError, Unreachable

EXIT = {
    "ok": 0,
    "refused": 1,  # a version refused, a challenge declined or expired
    "usage": 2,  # a bad command line (argparse's own code)
    "api": 3,  # the server refused the request
    "unreachable": 4,
    "timeout": 5,
}
FINAL_VERSION = ("active", "invalid", "disabled")
FINAL_CHALLENGE = ("finished", "declined", "expired", "cancelled")


class Failure(Exception):
    def __init__(self, message: str, code: str, data: dict | None = None):
        super().__init__(message)
        self.code = code
        self.data = data or {}


def config_path() -> Path:
    if os.environ.get("ARENA_CONFIG"):
        return Path(os.environ["ARENA_CONFIG"])
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "arena" / "client.json"


def stored() -> dict:
    try:
        return json.loads(config_path().read_text())
    except (OSError, ValueError):
        return {}


def table(rows: list[dict], columns: list[str]) -> str:
    """Rows as aligned columns under a header."""
    cells = [
        [str(row.get(c, "") if row.get(c) is not None else "") for c in columns] for row in rows
    ]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.upper().ljust(w) for c, w in zip(columns, widths)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines)


class Progress:
    """A progress line on stderr while waiting: redrawn in place on a terminal, a line per
    change otherwise (CI logs). Never on stdout, which --json keeps clean."""

    def __init__(self, quiet: bool = False):
        self.tty = sys.stderr.isatty()
        self.last = None
        self.quiet = quiet
        self.started = time.monotonic()

    def show(self, text: str, done: int | None = None, total: int | None = None) -> None:
        if self.quiet:
            return
        if done is not None and total:
            filled = int(20 * min(done, total) / total)
            text = f"[{'#' * filled}{'.' * (20 - filled)}] {done}/{total} {text}"
        if self.tty:
            seconds = int(time.monotonic() - self.started)
            sys.stderr.write(f"\r{text} ({seconds}s)\033[K")
            sys.stderr.flush()
        elif text != self.last:
            print(text, file=sys.stderr, flush=True)
        self.last = text

    def end(self) -> None:
        if self.tty and self.last is not None and not self.quiet:
            sys.stderr.write("\n")


def wait(check, *, timeout: float, poll: float, what: str):
    """Call ``check()`` every ``poll`` seconds until it returns something; Failure on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise Failure(f"gave up waiting for {what} after {timeout:.0f}s", "timeout")
        time.sleep(poll)


# Commands: each returns (data for --json, text for people) or raises Failure.


# What a login's token may do unless --scopes says otherwise: everything an author does
# from a terminal; organising tournaments is asked for explicitly.
LOGIN_SCOPES = ("read", "upload", "challenge")


def cmd_login(api: Api, args) -> tuple[dict, str]:
    """The password buys the account's key for one request only: what is stored is a scoped
    token made with it, which the server's token page lists and can revoke alone."""
    username = args.username or input("Username: ")
    password = os.environ.get("ARENA_PASSWORD") or getpass.getpass("Password: ")
    answer = api.post("/api/auth/token/", {"username": username, "password": password})
    account = Api(api.url, answer["token"], api.timeout)
    scopes = list(dict.fromkeys(args.scopes.split(","))) if args.scopes else list(LOGIN_SCOPES)
    # Token names are unique per account: the time and a tag tell this login's from others.
    tag = f"{time.strftime('%Y-%m-%d %H:%M')} {secrets.token_hex(3)}"
    name = f"arena client on {(platform.node() or 'this machine')[:20]}, {tag}"
    made = account.post("/api/tokens/", {"name": name, "scopes": scopes})
    before = stored()
    if before.get("url") == api.url and before.get("token_id"):
        # The token this file held until now is replaced: it should not stay valid unseen.
        try:
            account.request("DELETE", f"/api/tokens/{before['token_id']}/")
        except ApiError:
            pass  # already revoked, or another account's login
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created private, not narrowed after: the key is never readable by others.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(
            json.dumps({"url": api.url, "token": made["key"], "token_id": made["id"]}, indent=2)
        )
    path.chmod(0o600)
    data = {
        "url": api.url,
        "username": username,
        "config": str(path),
        "token": {"id": made["id"], "name": made["name"], "scopes": made["scopes"]},
    }
    return data, (
        f"Logged in to {api.url} as {username}; a token for {', '.join(made['scopes'])} "
        f'("{made["name"]}", revocable on the server\'s API tokens page) is in {path}.'
    )


def cmd_upload(api: Api, args) -> tuple[dict, str]:
    file = Path(args.file)
    if not file.is_file():
        raise Failure(f"no file {file}", "usage")
    version = api.upload(f"/api/bots/{args.bot}/versions/", file)
    label = f"{version['bot']} v{version['number']}"
    if not args.wait:
        return version, f"Uploaded {label} (version {version['id']}): {version['status']}."
    progress = Progress(args.json_quiet)

    def verdict():
        current = api.get(f"/api/versions/{version['id']}/")
        progress.show(f"{label}: {current['status']}")
        return current if current["status"] in FINAL_VERSION else None

    try:
        version = wait(verdict, timeout=args.timeout, poll=args.poll, what="the validation")
    finally:
        progress.end()
    if version["status"] != "active":
        reason = version.get("reason") or version["status"]
        detail = version.get("reason_detail")
        message = f"{label} was refused: {reason}" + (f"\n{detail}" if detail else "")
        raise Failure(message, "refused", version)
    return version, f"{label} is active (version {version['id']})."


def cmd_versions(api: Api, args) -> tuple[list, str]:
    rows = api.all_pages(f"/api/bots/{args.bot}/versions/")
    view = [
        {**r, "reason": (r.get("reason") or "")[:60], "created": (r.get("created_at") or "")[:16]}
        for r in rows
    ]
    return rows, table(view, ["id", "number", "status", "filename", "created", "reason"])


def challenge_line(c: dict) -> str:
    line = f"challenge {c['id']} ({c['status']}): {c.get('bot_name', c.get('bot'))} "
    line += f"v{c.get('version_number', '?')} - {c.get('wins', 0)} wins, "
    line += f"{c.get('draws', 0)} draws, {c.get('losses', 0)} losses"
    if c.get("elo_diff") is not None:
        line += f", Elo {c['elo_diff']:+.0f}"
        if c.get("elo_margin") is not None:
            line += f" +/- {c['elo_margin']:.0f}"
    return line


def follow_challenge(api: Api, challenge_id: int, args) -> dict:
    progress = Progress(args.json_quiet)

    def ended():
        current = api.get(f"/api/challenges/{challenge_id}/")
        progress.show(current["status"], current.get("played"), current.get("total"))
        return current if current["status"] in FINAL_CHALLENGE else None

    try:
        return wait(ended, timeout=args.timeout, poll=args.poll, what="the challenge")
    finally:
        progress.end()


def cmd_challenge(api: Api, args) -> tuple[dict, str]:
    body = {"bot": args.bot, "opponents": args.opponents, "games": args.games}
    if args.version is not None:
        body["version"] = args.version
    challenge = api.post("/api/challenges/", body)
    if args.wait:
        challenge = follow_challenge(api, challenge["id"], args)
        if challenge["status"] != "finished":
            raise Failure(challenge_line(challenge), "refused", challenge)
    return challenge, challenge_line(challenge)


def cmd_status(api: Api, args) -> tuple[dict, str]:
    if args.kind == "challenge":
        challenge = api.get(f"/api/challenges/{args.id}/")
        if args.wait:
            challenge = follow_challenge(api, args.id, args)
        text = (
            challenge_line(challenge)
            + f"\n{challenge.get('played', 0)}/{challenge.get('total', 0)} games played"
        )
        return challenge, text
    tournament = api.get(f"/api/tournaments/{args.id}/")
    progress = tournament.get("progress") or {}
    text = f"tournament {tournament['id']} {tournament['name']} ({tournament['status']})"
    if progress:
        text += f"\nmatches played: {progress.get('done', 0)}/{progress.get('total', 0)}"
        ended = ("done", "total", "finished", "failed")
        waiting = {k: v for k, v in progress.items() if k not in ended and v}
        if waiting:
            text += " (" + ", ".join(f"{v} {k}" for k, v in waiting.items()) + ")"
    standings = tournament.get("standings") or []
    if standings:
        rows = [
            {
                "place": s.get("position"),
                "bot": s.get("bot") or s.get("bot_id"),
                "points": s.get("points"),
            }
            for s in standings
        ]
        text += "\n" + table(rows, ["place", "bot", "points"])
    return tournament, text


def cmd_logs(api: Api, args) -> tuple[dict, str]:
    match = api.get(f"/api/matches/{args.match}/")
    seats = [s["seat"] for s in match.get("seats", [])]
    if args.seat is not None:
        seats = [args.seat]
    logs = {}
    for seat in seats:
        try:
            logs[str(seat)] = api.get(
                f"/api/matches/{args.match}/seats/{seat}/log/", raw=True
            ).decode(errors="replace")
        except ApiError as exc:
            if args.seat is not None or exc.status not in (401, 403):
                raise
    if not logs:
        raise Failure("none of this match's seats is yours: no log to read", "api")
    text = "\n".join(f"== seat {seat}\n{log.rstrip()}" for seat, log in logs.items())
    return {"match": args.match, "logs": logs}, text


def cmd_record(api: Api, args) -> tuple[dict, str]:
    match = api.get(f"/api/matches/{args.match}/")
    if match.get("hidden") is True:
        raise Failure(
            f"match {args.match}'s record is hidden from you for now: {match.get('hidden_reason', '')}".rstrip(
                ": "
            ),
            "refused",
            match,
        )
    out = Path(args.output or f"match-{args.match}.json")
    out.write_text(json.dumps(match, indent=1))
    data = {"match": args.match, "file": str(out)}
    return data, f"Saved match {args.match} to {out}; check it with: python manage.py replay {out}"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="arena", description=__doc__.splitlines()[0])
    top.add_argument("--version", action="version", version=f"arena-client {__version__}")
    # The common options are taken before the command and after it alike: after it, a
    # left-out one must not put its default over the one given before (SUPPRESS).
    common = argparse.ArgumentParser(add_help=False)
    for parser_, default in ((top, None), (common, argparse.SUPPRESS)):
        parser_.add_argument(
            "--url", default=default, help="the server (else ARENA_URL, else the stored one)"
        )
        parser_.add_argument(
            "--token", default=default, help="an API token (else ARENA_TOKEN, else the stored one)"
        )
        parser_.add_argument(
            "--json",
            action="store_true",
            default=False if default is None else default,
            help="print JSON for scripts",
        )
    waits = argparse.ArgumentParser(add_help=False)
    waits.add_argument("--timeout", type=float, default=600, help="seconds to wait at most")
    waits.add_argument("--poll", type=float, default=1.0, help="seconds between checks")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("login", parents=[common], help="store a token for this server")
    p.add_argument("--username")
    p.add_argument(
        "--scopes",
        help="the stored token's scopes, comma-separated among read, upload, challenge, "
        f"organise (default: {','.join(LOGIN_SCOPES)})",
    )
    p.set_defaults(run=cmd_login)

    p = commands.add_parser(
        "upload", parents=[common, waits], help="upload a version and wait for its verdict"
    )
    p.add_argument("bot", type=int, help="the bot's id")
    p.add_argument("file", help="a .py or .zip file")
    p.add_argument(
        "--no-wait", dest="wait", action="store_false", help="do not wait for validation"
    )
    p.set_defaults(run=cmd_upload)

    p = commands.add_parser("versions", parents=[common], help="a bot's versions")
    p.add_argument("bot", type=int)
    p.set_defaults(run=cmd_versions)

    p = commands.add_parser("challenge", parents=[common, waits], help="challenge bots")
    p.add_argument("bot", type=int, help="your bot's id")
    p.add_argument("opponents", type=int, nargs="+", help="the opponents' bot ids")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--version", type=int, default=None, help="a version id; default: the current")
    p.add_argument("--wait", action="store_true", help="wait for the score")
    p.set_defaults(run=cmd_challenge)

    p = commands.add_parser(
        "status", parents=[common, waits], help="a challenge's or tournament's progress"
    )
    p.add_argument("kind", choices=["challenge", "tournament"])
    p.add_argument("id", type=int)
    p.add_argument("--wait", action="store_true", help="challenge: wait until it ends")
    p.set_defaults(run=cmd_status)

    p = commands.add_parser("logs", parents=[common], help="your seats' logs of a match")
    p.add_argument("match", type=int)
    p.add_argument("--seat", type=int, default=None)
    p.set_defaults(run=cmd_logs)

    p = commands.add_parser(
        "record", parents=[common], help="save a match's record for manage.py replay"
    )
    p.add_argument("match", type=int)
    p.add_argument("-o", "--output", help="the file (default match-<id>.json)")
    p.set_defaults(run=cmd_record)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.json_quiet = False
    config = stored()
    url = args.url or os.environ.get("ARENA_URL") or config.get("url")
    token = args.token or os.environ.get("ARENA_TOKEN") or config.get("token")
    if not url:
        print("arena: no server: pass --url (or set ARENA_URL, or log in)", file=sys.stderr)
        return EXIT["usage"]
    api = Api(url, None if args.command == "login" else token)
    try:
        data, text = args.run(api, args)
    except Failure as exc:
        return report_failure(args, str(exc), exc.code, exc.data)
    except ApiError as exc:
        return report_failure(
            args, exc.describe(), "api", {"status": exc.status, "error": exc.body}
        )
    except Unreachable as exc:
        return report_failure(args, str(exc), "unreachable", {})
    except KeyboardInterrupt:
        return 130
    print(json.dumps(data, indent=2) if args.json else text)
    return EXIT["ok"]


def report_failure(args, message: str, code: str, data: dict) -> int:
    if args.json:
        print(
            json.dumps(
                {"error": message, "kind": code, **({"data": data} if data else {})}, indent=2
            )
        )
    print(f"arena: {message}", file=sys.stderr)
    return EXIT[code]
