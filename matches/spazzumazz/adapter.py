"""A Spazz'u'mazz game in the result cycle (``matches.results``): the finishing order is its
outcome (``matches.spazzumazz.payload``). A result in force writes each player's place and
marks the club's statistics stale from that game on; a task rebuilds them after commit.
"""

from __future__ import annotations

from django.db.models import Case, Value, When
from django.urls import reverse

from matches.results.adapters import GameAdapter
from matches.spazzumazz.models import SpazzumazzGame
from matches.spazzumazz.payload import check_result
from matches.spazzumazz.stats import mark_stale
from matches.spazzumazz.tasks import update_spazzumazz_stats


class SpazzumazzAdapter(GameAdapter):
    game = "spazzumazz"
    model = SpazzumazzGame
    related = ("club", "house_rules")

    def players(self, subject):
        return subject.players_in_turn_order()

    def house_rules(self, subject):
        return subject.house_rules

    def url(self, subject):
        return reverse("spazzumazz:game", kwargs={"slug": subject.club.slug, "game_id": subject.pk})

    def check(self, subject, payload, *, actor):
        return check_result(subject, payload)

    def applied(self, subject, outcome, *, previous, by, checked):
        # Every player's place in one query.
        place_of = {pk: n for n, pk in enumerate(outcome.payload["finish_order"], 1)}
        subject.places.update(
            place=Case(*(When(player_id=pk, then=Value(n)) for pk, n in place_of.items()))
        )
        self.result_changed(subject)

    def voided(self, subject, outcome, *, by):
        subject.places.update(place=None)
        self.result_changed(subject)

    def result_changed(self, game):
        """Mark the club's derived rows stale from this game on (in the step's transaction)
        and rebuild them after commit."""
        mark_stale(club_id=game.club_id, since=game.played_at)
        update_spazzumazz_stats.delay_on_commit(club_id=game.club_id)


ADAPTER = SpazzumazzAdapter()
