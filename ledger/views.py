"""The ledger's pages: a club's balances, debts, settle-up plan and payments; a person's
statement (and its CSV). Members only (``clubs.access``); each view: authorize, fetch, act,
render."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

import plumbing.csv_export as csv_export
import plumbing.public_pages as public_pages
from clubs.access import club_page
from clubs.models import Role
from ledger import privacy, services
from ledger import reads as ledger_reads
from ledger.amounts import POINTS, validate_unit
from ledger.forms import PaymentForm
from ledger.models import Payment
from ledger.sources import Source, describe
from ledger.templatetags.ledger import amount as format_amount
from ledger.templatetags.ledger import unit_label
from plumbing.errors import Conflict
from plumbing.once.sent import once_per_form
from plumbing.public_pages import member_page

STATEMENT_LINES = 200  # on the page; the CSV has every line
DEBT_PARTS = 30  # the latest of a pair's postings on the page; the API has every one


def _unit(request, club) -> str:
    """The ``?unit=`` asked for, if it is one; else the club's default."""
    asked = request.GET.get("unit") or request.POST.get("unit")
    if asked:
        try:
            return validate_unit(asked)
        except ValidationError:
            messages.error(request, _("Unknown unit: showing the club's default."))
    return ledger_reads.default_unit(club)


def _scope(request) -> tuple[str | None, int | None]:
    session = request.GET.get("session", "")
    if session.isdigit() and 0 < len(session) <= 18:
        return services.scope_of_session(int(session)), int(session)
    return None, None


def _session_source(club, scope: str | None, session: int | None) -> Source | None:
    """The table a session's ledger is about, as its game names it ("Tavolo verde, venerdì
    4 dicembre 2026", with a link); "Session 3" if no game describes it."""
    if scope is None:
        return None
    found = describe(club, [scope])[scope]
    if found.text == scope:
        return Source(_("Session %(n)s") % {"n": session})
    return found


def _own_player(access, user):
    return access.club.players.active().filter(user=user).first()


def _ledger_url(club, unit: str, session: int | None = None) -> str:
    query = {"unit": unit, **({"session": session} if session else {})}
    return f"{reverse('ledger:club', args=[club.slug])}?{urlencode(query)}"


def _pending_by_pair(payments) -> dict[tuple[int, int], list]:
    """Pending payments by (payer, payee): a "Paid" tapped in a plan shows as pending there
    until the payee confirms it."""
    pairs: dict[tuple[int, int], list] = {}
    for payment in payments:
        pairs.setdefault((payment.payer_id, payment.payee_id), []).append(payment)
    return pairs


def _pending_minor(waiting, debt) -> int:
    """What the debtor has recorded paying the creditor, waiting for confirmation."""
    return sum(p.amount_minor for p in waiting.get((debt.debtor.pk, debt.creditor.pk), []))


def _ledger_rows(club, unit: str, scope: str | None, session: int | None) -> dict:
    """What every member sees of the ledger in a unit and scope: kept per club state (each
    member's own part and what they may see of it is added live)."""
    units = ledger_reads.units_of(club)
    if unit not in units:
        units.append(unit)
    where = {"club": club, "unit": unit, "scope": scope}
    balances = ledger_reads.balances(**where)
    whole_club = balances if scope is None else ledger_reads.balances(club=club, unit=unit)
    return {
        "units": units,
        "pending": list(club.ledger_payments.pending().select_related("payer", "payee")),
        "plan": ledger_reads.settle_up_plan(**where),
        "balances": balances,
        "debts": ledger_reads.net_debts(**where, parts=DEBT_PARTS),
        "session_source": _session_source(club, scope, session),
        # Whom the payment form offers: the people of this ledger (a payment settles what
        # they owe each other), not the club's every player, who may be a thousand.
        "players": sorted(
            ((b.player.pk, str(b.player)) for b in whole_club if b.player.merged_into_id is None),
            key=lambda choice: (choice[1].lower(), choice[0]),
        ),
    }


@member_page("ledger")
@club_page(at_least=Role.MEMBER)
def club_ledger(request, access):
    club = access.club
    unit = _unit(request, club)
    scope, session = _scope(request)
    rows = public_pages.shared(
        club,
        ("ledger", unit, session),
        lambda: _ledger_rows(club, unit, scope, session),
        areas=("ledger",),
    )
    units = rows["units"]
    own = _own_player(access, request.user)  # the member's own part: one query
    # Whose figures this user sees (the kept rows are everyone's): one query when hidden.
    shown = privacy.shown_players(access)  # None: everyone's figures
    pending = [
        {
            "payment": payment,
            "may_confirm": services.may_confirm_payment(access, payment, request.user),
            "may_cancel": services.may_cancel_payment(access, payment, request.user),
        }
        for payment in privacy.payments(rows["pending"], shown, request.user)
    ]
    plan = privacy.debts(rows["plan"], shown)
    debts = privacy.debts(rows["debts"], shown)
    waiting = _pending_by_pair([row["payment"] for row in pending if row["payment"].unit == unit])
    plan_rows = [
        {
            "debt": debt,
            "may_record": services.may_record_payment(access, debt.debtor, request.user),
            "pending_minor": _pending_minor(waiting, debt),
        }
        for debt in plan
    ]
    planned = {(debt.debtor.pk, debt.creditor.pk) for debt in plan}
    form = PaymentForm(
        club=club, own_player=own, any_payer=access.is_scorer, units=units, initial={"unit": unit}
    )
    form.offer(rows["players"])  # the kept names: no query to show the form
    return render(
        request,
        "ledger/club_ledger.html",
        {
            "club": club,
            "access": access,
            "unit": unit,
            "units": [(u, unit_label(u), _ledger_url(club, u, session)) for u in units],
            "session": session,
            "session_source": rows["session_source"],
            "whole_club_url": _ledger_url(club, unit),
            "balances": privacy.balances(rows["balances"], shown),
            "own_figures_only": shown is not None,
            "debts": [
                {
                    "debt": debt,
                    "parts": debt.parts,
                    "earlier": debt.earlier,
                    "may_record": services.may_record_payment(access, debt.debtor, request.user),
                    "pending_minor": _pending_minor(waiting, debt),
                }
                for debt in debts
            ],
            "plan": plan_rows,
            # Pending payments between two people the plan does not pair.
            "pending_apart": [
                payment
                for pair, payments in waiting.items()
                if pair not in planned
                for payment in payments
            ],
            "pending": pending,
            "own": own,
            "form": form,
            "may_record": access.is_scorer or own is not None,
        },
    )


@require_POST
@club_page(at_least=Role.MEMBER)
@once_per_form
def record_payment(request, access):
    club = access.club
    units = ledger_reads.units_of(club)
    form = PaymentForm(
        request.POST,
        club=club,
        own_player=_own_player(access, request.user),
        any_payer=access.is_scorer,
        units=units + [u for u in [request.POST.get("unit", "")] if u and u not in units],
    )
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(_ledger_url(club, _unit(request, club)))
    data = form.cleaned_data
    try:
        payment = services.record_payment(
            club=club,
            payer=data["payer"],
            payee=data["payee"],
            amount=data["amount"],
            unit=data["unit"],
            by=request.user,
        )
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        return redirect(_ledger_url(club, data["unit"]))
    messages.success(
        request,
        _(
            "Payment recorded: %(payer)s paid %(payee)s %(amount)s %(unit)s. "
            "It counts once %(payee)s or an admin confirms it."
        )
        % {
            "payer": payment.payer,
            "payee": payment.payee,
            "amount": format_amount(payment.amount_minor, payment.unit),
            "unit": unit_label(payment.unit),
        },
    )
    return redirect(_ledger_url(club, payment.unit))


def _decide(request, access, payment_id, decide, done: str):
    club = access.club
    payment = get_object_or_404(Payment, club=club, pk=payment_id)
    try:
        decide(payment=payment, by=request.user)  # PermissionDenied: a 403
        messages.success(request, done)
    except Conflict as error:  # decided already
        messages.error(request, error.message)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    return redirect(_ledger_url(club, payment.unit))


@require_POST
@club_page(at_least=Role.MEMBER)
@once_per_form
def confirm_payment(request, access, payment_id):
    return _decide(request, access, payment_id, services.confirm_payment, _("Payment confirmed."))


@require_POST
@club_page(at_least=Role.MEMBER)
@once_per_form
def cancel_payment(request, access, payment_id):
    return _decide(request, access, payment_id, services.cancel_payment, _("Payment cancelled."))


def _statement(request, access, player_id):
    player = get_object_or_404(access.club.players.select_related("club"), pk=player_id)
    if not access.sees_money(player):
        raise PermissionDenied(_("Only the admins see other people's money in this club."))
    unit = _unit(request, access.club)
    scope, session = _scope(request)
    return player, ledger_reads.statement(player=player, unit=unit, scope=scope), session


@club_page(at_least=Role.MEMBER)
def statement(request, access, player_id):
    player, found, session = _statement(request, access, player_id)
    units = ledger_reads.units_of(access.club)
    if found.unit not in units:
        units.append(found.unit)
    here = reverse("ledger:statement", args=[access.club.slug, player.pk])
    lines = list(reversed(found.lines))  # newest first
    return render(
        request,
        "ledger/statement.html",
        {
            "club": access.club,
            "access": access,
            "player": player,
            "statement": found,
            "lines": lines[:STATEMENT_LINES],
            "more": max(0, len(lines) - STATEMENT_LINES),
            "unit": found.unit,
            "units": [(u, unit_label(u), f"{here}?{urlencode({'unit': u})}") for u in units],
            "session": session,
            "session_source": _session_source(access.club, _scope(request)[0], session),
            "csv_url": reverse("ledger:statement_csv", args=[access.club.slug, player.pk])
            + "?"
            + urlencode({"unit": found.unit, **({"session": session} if session else {})}),
            "ledger_url": _ledger_url(access.club, found.unit, session),
        },
    )


@club_page(at_least=Role.MEMBER)
def statement_csv(request, access, player_id):
    player, found, _session = _statement(request, access, player_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    filename = f"{access.club.slug}-{player.pk}-{found.unit}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv_export.writer(response)  # descriptions and keys are never run as formulas
    writer.writerow(
        [_("Date"), _("Description"), _("Kind"), _("Key"), _("Amount"), _("Balance"), _("Unit")]
    )
    for line in found.lines:
        writer.writerow(
            [
                timezone.localtime(line.transaction.at).isoformat(timespec="minutes"),
                line.description,
                line.transaction.get_kind_display(),
                line.transaction.key,
                line.amount,  # a plain number: 12.50 or 120, whatever the language
                line.balance,
                found.unit if found.unit != POINTS else "points",
            ]
        )
    return response
