from games import registry


def test_games_api_lists_every_registered_game_with_options(client, db):
    body = client.get("/api/games/").json()
    assert [g["slug"] for g in body] == registry.slugs()
    for game in body:
        engine = registry.get(game["slug"])
        assert game["min_players"] == engine.min_players
        assert game["max_players"] == engine.max_players
        assert set(game["options"]) == set(engine.options)
        assert {"random", "heuristic"} <= set(game["policies"])


def test_game_detail_has_its_rules_page(client, db):
    for slug in registry.slugs():
        body = client.get(f"/api/games/{slug}/").json()
        assert body["slug"] == slug
        assert "Ambiguities" in body["rules"], f"{slug} has no rules page with its decisions"


def test_pages_render_for_every_game(client, db):
    for slug in registry.slugs():
        assert client.get(f"/games/{slug}/").status_code == 200
        assert client.get(f"/games/{slug}/rules/").status_code == 200
    assert client.get("/games/no-such-game/").status_code == 404
    for path in ["/", "/bots/", "/tournaments/", "/api/", "/api/schema/", "/api/docs/"]:
        assert client.get(path).status_code == 200, path


def test_openapi_schema_documents_every_endpoint_without_warnings(db):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    schema = out.getvalue()
    for path in [
        "/api/games/{slug}/:",
        "/api/leaderboards/{game}/:",
        "/api/matches/{id}/replay/:",
        "/api/bots/{id}/ratings/:",
    ]:
        assert path in schema, path
    assert "teams_by_players" in schema and "MatchStatusEnum" in schema


def test_api_docs_assets_are_served_with_debug_off(client, db, settings):
    # The Swagger page is blank when its JavaScript 404s (runserver and
    # gunicorn serve no static files by themselves once DEBUG is off).
    settings.DEBUG = False
    page = client.get("/api/docs/").content.decode()
    assert "swagger-ui-bundle.js" in page
    for asset in [
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/static/rest_framework/css/bootstrap.min.css",
    ]:
        answer = client.get(asset)
        assert answer.status_code == 200, asset
        assert b"".join(answer.streaming_content)
