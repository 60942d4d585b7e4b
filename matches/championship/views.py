"""The championship's pages: the season's standings (for a phone and the big screen), their
CSV, and for admins the rules and the final. Each view: authorize, fetch, act, answer."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

import plumbing.csv_export as csv_export
from clubs.access import club_page
from clubs.models import Role
from matches.championship import services, standings
from matches.championship.forms import ChampionshipForm, FinalForm
from matches.championship.models import EventKind
from matches.championship.sections import shown_season
from plumbing.errors import Conflict
from plumbing.public_pages import public_page


def _season(access, season_id: int):
    return get_object_or_404(access.club.seasons, pk=season_id)


def _page(request, access, season, *, form=None, final_form=None, status=200):
    table = standings.table(season)
    rules = table.championship.rules if table.championship else None
    is_admin = access.has(Role.ADMIN)
    return render(
        request,
        "matches/championship/standings.html",
        {
            "club": access.club,
            "access": access,
            "season": season,
            "table": table,
            "kinds": dict(EventKind.choices),
            "rules": rules,
            "screen": request.GET.get("screen") == "1",
            "form": (form or ChampionshipForm(rules=rules)) if is_admin else None,
            "final_form": (final_form or FinalForm()) if is_admin and table.rows else None,
        },
        status=status,
    )


@club_page()
def current(request, access):
    """The championship tab: the season it shows, or a page saying there is none."""
    season = shown_season(access.club)
    if season is None:
        return render(
            request,
            "matches/championship/none.html",
            {"club": access.club, "access": access},
        )
    return redirect("championship:standings", access.club.slug, season.pk)


@public_page(standings.AREA)
@club_page()
def standings_page(request, access, season_id: int):
    return _page(request, access, _season(access, season_id))


@club_page(Role.ADMIN)
def rules(request, access, season_id: int):
    season = _season(access, season_id)
    if request.method != "POST":
        return redirect("championship:standings", access.club.slug, season.pk)
    form = ChampionshipForm(request.POST)
    if form.is_valid():
        try:
            championship = services.set_championship(
                season=season, by=request.user, data=form.rules()
            )
        except ValidationError as error:
            form.show_errors(error.message_dict)
        else:
            messages.success(
                request,
                _("The championship's rules are version %(version)s: the standings follow them.")
                % {"version": championship.version},
            )
            return redirect("championship:standings", access.club.slug, season.pk)
    return _page(request, access, season, form=form, status=400)


@club_page(Role.ADMIN)
def final(request, access, season_id: int):
    season = _season(access, season_id)
    if request.method != "POST":
        return redirect("championship:standings", access.club.slug, season.pk)
    form = FinalForm(request.POST)
    if form.is_valid():
        try:
            tournament = services.create_final(season=season, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                for message in errors:
                    form.add_error(field if field in form.fields else None, message)
        except Conflict as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, _("The final is ready: open its registration and draw."))
            return redirect(tournament.get_absolute_url())
    return _page(request, access, season, final_form=form, status=400)


@club_page()
def standings_csv(request, access, season_id: int):
    season = _season(access, season_id)
    table = standings.table(season)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{access.club.slug}-{season.pk}-championship.csv"'
    )
    kinds = dict(EventKind.choices)
    writer = csv_export.writer(response)
    writer.writerow(
        [_("rank"), _("player"), _("points"), _("events"), _("wins"), _("results"), _("why")]
    )
    for row in table.rows:
        results = "; ".join(
            f"{r['date']} {kinds[r['event']]} {r['place']}° {r['points']}"
            + ("" if r["counted"] else f" ({_('not counted')})")
            for r in row.results
        )
        writer.writerow(
            [
                row.rank if row.rank is not None else "",
                row.player.display_name,
                row.standing.points,
                row.standing.events,
                row.standing.wins,
                results,
                row.why,
            ]
        )
    return response
