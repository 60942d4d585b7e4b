"""``manage.py import_hands FILE.jsonl --club SLUG``: past Singapore hands from JSON lines.

See ``matches.singapore.importer`` for the format and what is written. Prints a progress bar
on the terminal, then the figures; the refused lines, with their errors, go to ``--report``
(JSON lines) and are summed up on the standard error. Exit 0 when every line was imported
(or had been before), 1 when some were refused, 2 when the command could not run.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from clubs.models import Club
from matches.singapore.importer import DEFAULT_TABLE, Importer
from matches.singapore.models import TableSession


def _mapping(path: str | None) -> dict:
    """``--players``: a JSON file of ``{"name": player id}``."""
    if not path:
        return {}
    try:
        mapping = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CommandError(f"--players: {error}") from error
    if not isinstance(mapping, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in mapping.values()
    ):
        raise CommandError('--players: a JSON object of "name": player id')
    return mapping


def _point_value(text: str | None) -> Decimal | None:
    """``--point-value``: money a point, more than zero, at most two decimals."""
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation as error:
        raise CommandError("--point-value: a number such as 0.10") from error
    if not value.is_finite() or value <= 0 or value != value.quantize(Decimal("0.01")):
        raise CommandError("--point-value: more than zero, at most two decimals")
    return value


class Command(BaseCommand):
    help = "Import past Singapore hands (JSON lines, RULES.md's records with their stakes)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the JSON lines file (- for standard input)")
        parser.add_argument("--club", required=True, help="the club's slug")
        parser.add_argument(
            "--players", help='a JSON file mapping names to player ids: {"Anna": 12}'
        )
        parser.add_argument("--session", type=int, help="put every hand in this table")
        parser.add_argument(
            "--table", default=DEFAULT_TABLE, help="the table's name for lines that give none"
        )
        parser.add_argument("--point-value", help="money per point of new tables (default none)")
        parser.add_argument(
            "--create-guests", action="store_true", help="add unknown names as guests"
        )
        parser.add_argument("--by", help="the username recorded as entering the hands")
        parser.add_argument(
            "--allow-out-of-turn",
            action="store_true",
            help="let in lines out of the rotation's turn, marked (needs --by, an admin)",
        )
        parser.add_argument("--batch", type=int, default=2000, help="hands per transaction")
        parser.add_argument("--workers", type=int, help="processes checking (default: cores)")
        parser.add_argument("--report", help="write the refused lines here (JSON lines)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **options):
        club = Club.objects.filter(slug=options["club"]).first()
        if club is None:
            raise CommandError(f"no club {options['club']!r}")
        mapping = _mapping(options["players"])
        session = None
        if options["session"]:
            session = TableSession.objects.filter(pk=options["session"], club=club).first()
            if session is None:
                raise CommandError(f"no table {options['session']} in {club.slug}")
        value = _point_value(options["point_value"])
        by = None
        if options["by"]:
            by = get_user_model().objects.filter(username=options["by"]).first()
            if by is None:
                raise CommandError(f"no user {options['by']!r}")
        path = options["file"]
        try:
            stream = sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            raise CommandError(str(error)) from error
        quiet = options["no_progress"] or options["verbosity"] == 0
        bars = []

        def progress(total, label):
            bar = tqdm(total=total, desc=label, unit=" hands", disable=quiet, file=sys.stderr)
            bars.append(bar)
            return bar.update

        try:
            with stream:
                report = Importer(
                    club=club,
                    by=by,
                    players=mapping,
                    session=session,
                    table=options["table"],
                    point_value=value,
                    create_guests=options["create_guests"],
                    batch=options["batch"],
                    source=Path(path).name if path != "-" else "stdin",
                    workers=options["workers"],
                    progress=progress,
                    allow_out_of_turn=options["allow_out_of_turn"],
                ).run(stream)
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from error
        except PermissionDenied as error:
            raise CommandError(f"--allow-out-of-turn: {error} (--by an admin)") from error
        finally:
            for bar in bars:
                bar.close()
        if options["report"]:
            with open(options["report"], "w", encoding="utf-8") as out:
                for refusal in report.refused:
                    out.write(json.dumps(refusal.as_dict(), ensure_ascii=False) + "\n")
        self.stdout.write(
            f"{report.lines} lines: {report.imported} imported, {report.skipped} imported "
            f"before, {len(report.refused)} refused, {len(report.out_of_turn)} let in out of "
            f"turn; {len(report.sessions)} tables; "
            + ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
        )
        for refusal in report.refused[:20]:
            first = refusal.errors[0] if refusal.errors else {}
            self.stderr.write(
                f"line {refusal.line}: {first.get('code')}: {first.get('message')}"
                + (f" (at {first['at']})" if first.get("at") else "")
            )
        if len(report.refused) > 20:
            self.stderr.write(f"... and {len(report.refused) - 20} more")
        if report.refused:
            sys.exit(1)
