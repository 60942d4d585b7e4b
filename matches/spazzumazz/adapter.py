"""A Spazz'u'mazz game in the result cycle (``matches.results``): the finishing order is its
outcome (``matches.spazzumazz.payload``). A result in force writes each player's place and
marks the club's statistics stale from that game on; a task rebuilds them after commit.
"""

from __future__ import annotations

from matches.models import SpazzumazzGame, SpazzumazzPlace
from matches.results.adapters import GameAdapter, register
from matches.spazzumazz.payload import check_result
from matches.spazzumazz.stats import result_changed


class SpazzumazzAdapter(GameAdapter):
    game = "spazzumazz"
    model = SpazzumazzGame
    related = ("club", "house_rules")

    def players(self, subject):
        return subject.players_in_turn_order()

    def house_rules(self, subject):
        return subject.house_rules

    def check(self, subject, payload, *, actor):
        return check_result(subject, payload)

    def applied(self, subject, outcome, *, previous, by, checked):
        place_of = {pk: n for n, pk in enumerate(outcome.payload["finish_order"], 1)}
        places = list(subject.places.all())
        for place in places:
            place.place = place_of[place.player_id]
        SpazzumazzPlace.objects.bulk_update(places, ["place"])
        result_changed(game=subject)

    def withdrawn(self, subject, outcome, *, by):
        subject.places.update(place=None)
        result_changed(game=subject)


register(SpazzumazzAdapter())
