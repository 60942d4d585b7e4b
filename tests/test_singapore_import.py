"""Bulk import of past hands: checked in bulk, grouped into tables, written in batches,
resumable, with a report of the refused lines."""

import csv
import io
import json

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command

from matches.models import AuditEntry, GameRecord, GameSeat, Hand, Outcome, TableSession
from matches.singapore import posting, services
from matches.singapore.importer import import_hands
from rules.bots import singapore as bot
from tests.singapore_helpers import make_table, open_table

pytestmark = pytest.mark.django_db

NAMES = bot.NAMES


@pytest.fixture
def world(make_user):
    return make_table(make_user, names=(), guests=NAMES)


def bot_lines(n, *, seed=0, **meta):
    """``n`` bot-dealt lines of one table, in turn (each winner stays and deals)."""
    lines = []
    for record in bot.table_records(seed, n):
        record.update(meta)
        lines.append(json.dumps(record))
    return lines


def test_bot_dealt_hands_are_imported_into_tables_by_name_and_date(world):
    lines = bot_lines(5, table="Tavolo A", date="2026-01-10") + bot_lines(
        3, seed=100, table="Tavolo B", date="2026-01-10"
    )
    report = import_hands(club=world["club"], lines=lines, source="carta.jsonl", workers=1)
    assert (report.lines, report.imported, report.skipped, report.refused) == (8, 8, 0, [])
    tables = TableSession.objects.order_by("name")
    assert [(t.name, str(t.date), t.hands.count()) for t in tables] == [
        ("Tavolo A", "2026-01-10", 5),
        ("Tavolo B", "2026-01-10", 3),
    ]
    assert all(not t.is_open and t.imported_from == "carta.jsonl" for t in tables)
    assert Outcome.objects.filter(status="confirmed").count() == 8
    record = GameRecord.objects.filter(outcome__object_id=tables[0].hands.first().pk).get()
    seated = set(
        GameSeat.objects.filter(game_record=record).values_list("name_in_record", flat=True)
    )
    stake = record.record["stake"]
    assert {stake["dealer"], stake["opponent"], *stake["covers"]} <= seated
    assert [h.number for h in tables[0].hands.order_by("number")] == [1, 2, 3, 4, 5]
    entry = AuditEntry.objects.get(object_id=tables[0].pk, action="import")
    assert entry.data == {"hands": 5, "lines": [1, 5]} and entry.note == "carta.jsonl"


def test_refused_lines_are_reported_with_their_errors_and_the_rest_goes_in(world):
    good = bot_lines(3)
    broken = json.loads(bot_lines(1, seed=50)[0])
    broken["winner"] = broken["winner"][:9] + ["ZZ"]
    stranger = json.loads(bot_lines(1, seed=51)[0])
    stranger["stake"]["dealer"] = "Sconosciuto"
    lines = [good[0], "{not json", json.dumps(broken), good[1], json.dumps(stranger), "[1]"]
    lines += [json.dumps({"game": "singapore", "winner": [], "loser": []}), good[2]]
    report = import_hands(club=world["club"], lines=lines, workers=1)
    assert report.imported == 3
    refused = {r.line: r.errors[0]["code"] for r in report.refused}
    assert refused == {
        2: "bad_json",
        3: "unknown_card",
        5: "unknown_player",
        6: "bad_record",
        7: "bad_stake",
    }
    assert report.refused[1].errors[0]["at"] == "winner[9]"
    assert "Sconosciuto" in report.refused[2].errors[0]["message"]


def test_importing_the_same_file_again_imports_nothing_twice(world):
    lines = bot_lines(6)
    first = import_hands(club=world["club"], lines=lines, source="f.jsonl", workers=1)
    again = import_hands(club=world["club"], lines=lines, source="f.jsonl", workers=1)
    assert (first.imported, again.imported, again.skipped) == (6, 0, 6)
    assert Hand.objects.count() == 6 and TableSession.objects.count() == 1


def test_an_import_that_fails_halfway_leaves_whole_batches_and_resumes(world, monkeypatch):
    lines = bot_lines(10, date="2026-02-01")
    real = posting.post_imported
    calls = {"n": 0}

    def failing(hands, *, by):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("the disk is full")
        return real(hands, by=by)

    monkeypatch.setattr(posting, "post_imported", failing)
    with pytest.raises(RuntimeError):
        import_hands(club=world["club"], lines=lines, source="f.jsonl", batch=4, workers=1)
    assert Hand.objects.count() == 8  # two whole batches of four
    assert Outcome.objects.count() == GameRecord.objects.count() == 8
    monkeypatch.setattr(posting, "post_imported", real)
    resumed = import_hands(club=world["club"], lines=lines, source="f.jsonl", batch=4, workers=1)
    assert (resumed.imported, resumed.skipped) == (2, 8)
    session = TableSession.objects.get()
    assert sorted(session.hands.values_list("number", flat=True)) == list(range(1, 11))


def test_names_come_from_the_mapping_then_display_names_then_new_guests(world):
    anna = world["players"]["Anna"]
    record = bot.random_record(3, stake=True)
    record["stake"]["dealer"] = "la signora A."
    covers = record["stake"].pop("covers")
    record["stake"]["covers"] = {}
    record["stake"]["winner"] = record["stake"]["dealer"]
    opponent = record["stake"]["opponent"]
    record["stake"]["covers"] = {opponent: covers.get(opponent, 1), "Nuova": 1}
    record["stake"]["dealer_quotas"] = 20
    record["stake"]["side_bets"] = []
    lines = [json.dumps(record)]
    refused = import_hands(club=world["club"], lines=lines, players={"la signora A.": anna.pk})
    assert [r.errors[0]["code"] for r in refused.refused] == ["unknown_player"]
    report = import_hands(
        club=world["club"], lines=lines, players={"la signora A.": anna.pk}, create_guests=True
    )
    assert report.imported == 1
    hand = Hand.objects.get()
    assert hand.dealer == anna
    assert world["club"].players.filter(display_name="Nuova", user__isnull=True).exists()


def test_the_command_reports_and_exits_1_when_lines_are_refused(world, tmp_path, capsys):
    source = tmp_path / "mesi.jsonl"
    source.write_text("\n".join(bot_lines(4) + ["{oops"]) + "\n", encoding="utf-8")
    refused = tmp_path / "refused.jsonl"
    with pytest.raises(SystemExit) as exit_code:
        call_command(
            "import_hands",
            str(source),
            "--club",
            world["club"].slug,
            "--report",
            str(refused),
            "--point-value",
            "0.05",
            "--workers",
            "1",
        )
    assert exit_code.value.code == 1
    out = capsys.readouterr()
    assert "5 lines: 4 imported, 0 imported before, 1 refused" in out.out
    assert "line 5: bad_json" in out.err
    assert "checking" in out.err and "writing" in out.err  # the progress bars
    assert json.loads(refused.read_text())["line"] == 5
    session = TableSession.objects.get()
    assert str(session.point_value) == "0.05" and session.currency == "EUR"


def test_the_command_refuses_what_it_cannot_run(world, tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("import_hands", str(tmp_path / "none.jsonl"), "--club", world["club"].slug)
    with pytest.raises(CommandError):
        call_command("import_hands", "-", "--club", "no-such-club")
    mapping = tmp_path / "map.json"
    mapping.write_text('{"Anna": "x"}')
    with pytest.raises(CommandError):
        call_command("import_hands", "-", "--club", world["club"].slug, "--players", str(mapping))


def test_checking_in_worker_processes_gives_the_same_verdicts(world):
    lines = bot_lines(2099)
    # A line of another table (which keeps the rotation of the first whole), refused.
    broken = bot_lines(1, seed=7, table="Tavolo 2")[0]
    lines.insert(1500, broken.replace('"winner": [', '"winner": ["AS", ', 1))
    report = import_hands(club=world["club"], lines=lines, workers=2, batch=5000)
    assert report.imported == 2099
    assert [(r.line, r.errors[0]["code"]) for r in report.refused] == [(1501, "hand_size")]


def test_an_upload_through_the_api_answers_the_report(world, api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    api.force_authenticate(world["scorer"])
    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    content = "\n".join(bot_lines(3) + ['{"game": "sputo"}']).encode()
    body = {
        "club": world["club"].slug,
        "file": SimpleUploadedFile("carta.jsonl", content),
        "players": json.dumps({"Anna": world["players"]["Anna"].pk}),
        "point_value": "0.20",
    }
    response = api.post("/api/v1/table-sessions/import/", body, format="multipart")
    assert response.status_code == 200, response.data
    assert response.data["imported"] == 3 and response.data["lines"] == 4
    assert response.data["refused"] == [
        {
            "line": 4,
            "errors": [{"code": "unknown_game", "message": "Only Singapore hands.", "at": "game"}],
        }
    ]
    (session,) = response.data["sessions"]
    assert str(TableSession.objects.get(pk=session).point_value) == "0.20"
    again = api.post(
        "/api/v1/table-sessions/import/",
        dict(body, file=SimpleUploadedFile("carta.jsonl", content)),
        format="multipart",
    )
    assert (again.data["imported"], again.data["skipped"]) == (0, 3)
    bad = api.post(
        "/api/v1/table-sessions/import/",
        dict(body, file=SimpleUploadedFile("x.jsonl", b"{}"), players="[1]"),
        format="multipart",
    )
    assert bad.status_code == 400 and "players" in bad.data


# --- The rotation ----------------------------------------------------------------------------


def renamed(value, names: dict):
    """``value`` (a record) with people renamed by ``names``, wherever they appear."""
    if isinstance(value, dict):
        return {names.get(k, k): renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


def challenger_dealing(line: str) -> str:
    """The same hand with its two players' roles swapped: the challenger deals."""
    record = json.loads(line)
    dealer, opponent = record["stake"]["dealer"], record["stake"]["opponent"]
    return json.dumps(renamed(record, {dealer: opponent, opponent: dealer}))


def two_hands_the_second_out_of_turn():
    first, second = bot_lines(2, table="Tavolo 1", date="2026-01-16")
    winner = json.loads(first)["stake"]["winner"]
    return [first, challenger_dealing(second)], winner


def test_a_line_with_the_challenger_dealing_is_refused_naming_who_deals(world):
    lines, winner = two_hands_the_second_out_of_turn()
    report = import_hands(club=world["club"], lines=lines, by=world["scorer"], workers=1)
    assert report.imported == 1 and report.out_of_turn == []
    [refusal] = report.refused
    assert refusal.line == 2
    assert refusal.errors == [
        {
            "code": "out_of_turn",
            "message": f"Out of turn: {winner} won the table's previous hand, so {winner} "
            "deals this one (the winner stays and deals).",
            "at": "stake.dealer",
        }
    ]
    assert not Hand.objects.filter(out_of_turn=True).exists()


def test_an_admin_imports_lines_out_of_turn_with_the_flag_each_marked(world, client):
    lines, _winner = two_hands_the_second_out_of_turn()
    admin = world["admin"]
    report = import_hands(
        club=world["club"], lines=lines, by=admin, allow_out_of_turn=True, workers=1
    )
    assert (report.imported, report.refused, report.out_of_turn) == (2, [], [2])
    first, second = Hand.objects.order_by("number")
    assert (first.out_of_turn, second.out_of_turn) == (False, True)
    entry = AuditEntry.objects.get(object_id=second.pk, action="import_out_of_turn")
    assert entry.by == admin and entry.data["line"] == 2
    assert entry.data["played"] == [second.dealer_id, second.opponent_id]
    client.force_login(admin)
    client.cookies["django_language"] = "en"
    url = f"/clubs/{world['club'].slug}/tables/{second.session_id}"
    rows = list(csv.reader(io.StringIO(client.get(f"{url}/sheet.csv").content.decode())))
    assert [row[7] for row in rows[1:3]] == ["", "imported out of turn, allowed by ada"]
    page = client.get(f"{url}/sheet/").content.decode()
    assert "Hand 2: imported out of turn, allowed by ada" in page
    history = client.get(f"{url}/hands/{second.pk}/").content.decode()
    assert "ada imported the hand, allowing it out of turn." in history


@pytest.mark.parametrize("who", ["scorer", "nobody"])
def test_only_an_admin_may_import_lines_out_of_turn(world, who):
    lines, _winner = two_hands_the_second_out_of_turn()
    by = world["scorer"] if who == "scorer" else None
    with pytest.raises(PermissionDenied):
        import_hands(club=world["club"], lines=lines, by=by, allow_out_of_turn=True)
    assert not Hand.objects.exists()


def test_into_a_given_table_the_pair_is_checked_against_its_seats(world):
    seats = list(NAMES[:4])
    session = open_table(world, seats, first=(seats[0], seats[2]))
    lines = [json.dumps(r) for r in bot.table_records(5, 2, seats=seats)]  # starts 0 v 1
    report = import_hands(club=world["club"], lines=lines, session=session, workers=1)
    assert report.refused[0].line == 1
    assert report.refused[0].errors[0]["message"] == (
        f"Out of turn: the next hand is {seats[0]} (dealing) against {seats[2]}."
    )
    services.close_table(session=session, by=world["scorer"])  # the same people, anew
    again = open_table(world, seats, first=(seats[0], seats[1]))
    lines = [json.dumps(r) for r in bot.table_records(6, 3, seats=seats)]
    report = import_hands(club=world["club"], lines=lines, session=again, workers=1)
    assert (report.imported, report.refused) == (3, [])


def test_a_second_import_goes_on_from_the_tables_last_hand(world):
    lines, winner = two_hands_the_second_out_of_turn()
    import_hands(club=world["club"], lines=lines[:1], source="f.jsonl", workers=1)
    report = import_hands(club=world["club"], lines=lines, source="f.jsonl", workers=1)
    assert (report.skipped, report.imported, [r.line for r in report.refused]) == (1, 0, [2])
    assert winner in report.refused[0].errors[0]["message"]


def test_the_api_lets_lines_out_of_turn_in_for_an_admin_only(world, api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    lines, _winner = two_hands_the_second_out_of_turn()
    content = "\n".join(lines).encode()

    def upload(**extra):
        body = {"club": world["club"].slug, "file": SimpleUploadedFile("carta.jsonl", content)}
        return api.post("/api/v1/table-sessions/import/", dict(body, **extra), format="multipart")

    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(world["scorer"])
    assert upload(allow_out_of_turn="true").status_code == 403
    refused = upload()
    assert refused.status_code == 200
    assert [r["errors"][0]["code"] for r in refused.data["refused"]] == ["out_of_turn"]
    api.force_authenticate(world["admin"])
    allowed = upload(allow_out_of_turn="true")
    assert allowed.status_code == 200, allowed.data
    assert (allowed.data["imported"], allowed.data["out_of_turn"]) == (1, [2])
    assert Hand.objects.get(number=2).out_of_turn


def test_the_command_lets_lines_out_of_turn_in_with_an_admin(world, tmp_path, capsys):
    from django.core.management.base import CommandError

    lines, _winner = two_hands_the_second_out_of_turn()
    source = tmp_path / "sera.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = [str(source), "--club", world["club"].slug, "--workers", "1", "--no-progress"]
    with pytest.raises(CommandError, match="admin"):
        call_command("import_hands", *args, "--allow-out-of-turn")
    with pytest.raises(CommandError, match="admin"):
        call_command("import_hands", *args, "--allow-out-of-turn", "--by", "sam")
    call_command("import_hands", *args, "--allow-out-of-turn", "--by", "ada")
    assert "2 imported, 0 imported before, 0 refused, 1 let in out of turn" in (
        capsys.readouterr().out
    )
    assert list(Hand.objects.order_by("number").values_list("out_of_turn", flat=True)) == [
        False,
        True,
    ]
