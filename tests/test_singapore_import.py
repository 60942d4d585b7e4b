"""Bulk import of past hands: checked in bulk, grouped into tables, written in batches,
resumable, with a report of the refused lines."""

import json

import pytest
from django.core.management import call_command

from matches.models import AuditEntry, GameRecord, GameSeat, Hand, Outcome, TableSession
from matches.singapore import posting
from matches.singapore.importer import import_hands
from rules.bots import singapore as bot
from tests.singapore_helpers import make_table

pytestmark = pytest.mark.django_db

NAMES = bot.NAMES


@pytest.fixture
def world(make_user):
    return make_table(make_user, names=(), guests=NAMES)


def bot_lines(n, *, seed=0, **meta):
    lines = []
    for i in range(n):
        record = bot.random_record(seed + i, stake=True)
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
    lines = bot_lines(2100)
    lines[1500] = lines[1500].replace('"winner": [', '"winner": ["AS", ', 1)
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
