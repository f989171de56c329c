"""The dashboard's text for recorded JSON: events, moves and options read as JSON, not Python."""

from arena.dashboard.templatetags.arena_format import event_text, move_text, options_text


def test_event_text_lists_fields_after_the_type():
    event = {"type": "deal", "round": 0, "cards": [[1, 10], [0, 2]], "start": 0}
    assert event_text(event) == "deal: round=0 cards=[[1,10],[0,2]] start=0"
    assert event_text({"type": "game_over"}) == "game_over"


def test_move_text_shows_each_seat_with_wall_and_cpu_time():
    move = {"actions": {"0": "hit", "1": None}, "ms": {"0": 3, "1": 1}, "cpu_ms": {"0": 2}}
    assert move_text(move) == 'seat 0: "hit" (3 ms, CPU 2 ms) · seat 1: null (1 ms)'


def test_options_text_uses_json_values():
    assert options_text({"continuous": False, "gambling": "none"}) == (
        "continuous=false, gambling=none"
    )
    assert options_text({}) == "defaults"


def test_players_text_lists_table_sizes_with_gaps():
    from arena.dashboard.templatetags.arena_format import players_text
    from games import registry

    pairs = registry.get("pairs")
    assert players_text(pairs) == f"{pairs.min_players}–{pairs.max_players}"
    paks = registry.get("paks")
    assert players_text(paks) == "2, 3, 4, 6"
