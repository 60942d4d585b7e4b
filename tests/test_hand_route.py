"""A Singapore hand's write, from the API view to the ledger rows, as a newcomer reads it
(``docs/architecture.md``, "A Singapore hand's route"): the modules of the games' wing and
of the ledger whose code runs while a scorer's hand is recorded, traced call by call, and
the one place where the result cycle calls back up into the game (its adapter).

The doors below the wing (the access check in ``clubs``, the plumbing, the rules engine)
are not counted: every write of the house goes through them."""

import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from tests.singapore_helpers import next_names, open_table, payload
from tests.sputo_world import make_guests

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[1]
COUNTED = ("matches/", "ledger/")
# The route, in the order docs/architecture.md tells it.
ROUTE = {
    "matches/singapore/api.py",  # the view, its body, and the answer
    "matches/singapore/services.py",  # record_hand: lock, reporter, turn, the hand row
    "matches/singapore/payload.py",  # the one parser of a hand's result, the engine's check
    "matches/singapore/turns.py",  # whose turn it is
    "matches/singapore/models.py",
    "matches/results/steps.py",  # record_new (the record and its seats), into_force
    "matches/results/adapters.py",  # the roles table
    "matches/results/models.py",
    "matches/singapore/adapter.py",  # what coming into force changes: posting, stats queued
    "matches/singapore/posting.py",  # the hand's legs, its posting
    "ledger/services.py",  # post_transaction: prepared, netted, written
    "ledger/amounts.py",
}
# Floors within the wing and below it: a call from a lower one into a higher one climbs.
FLOORS = ["ledger/", "matches/results/", "matches/singapore/"]


def floor(path: str) -> int:
    return max(i for i, prefix in enumerate(FLOORS) if path.startswith(prefix))


def traced_hand(people):
    """The modules (relative paths) the second hand's POST runs code in, and the (caller,
    callee) pairs of modules between them."""
    club, mia = people["club"], people["club"].players.get(user=people["member"])
    world = {"club": club, "scorer": people["scorer"], "players": {"mia": mia}}
    world["players"].update({g.display_name: g for g in make_guests(club, 3)})
    table = open_table(world, list(world["players"]), point_value="0.10", seed=1)
    api = APIClient()
    api.force_authenticate(people["scorer"])
    url = f"/api/v1/table-sessions/{table.pk}/hands/"
    modules: set[str] = set()
    calls: set[tuple[str, str]] = set()

    def ours(filename: str) -> str | None:
        name = filename.removeprefix(f"{ROOT}/")
        return name if name != filename and name.startswith(COUNTED) else None

    def profile(frame, event, arg):
        if event != "call":
            return
        callee = ours(frame.f_code.co_filename)
        if callee is None:
            return
        modules.add(callee)
        caller_frame = frame.f_back
        while caller_frame is not None and ours(caller_frame.f_code.co_filename) is None:
            caller_frame = caller_frame.f_back
        if caller_frame is not None:
            calls.add((ours(caller_frame.f_code.co_filename), callee))

    for n in range(2):
        dealer, opponent = next_names(world, table)
        body = payload(world, covers={opponent: 1})
        body.update(dealer=world["players"][dealer].pk, opponent=world["players"][opponent].pk)
        if n == 1:
            sys.setprofile(profile)
        try:
            response = api.post(url, body, format="json")
        finally:
            sys.setprofile(None)
        assert response.status_code == 201, response.data
    return modules, calls


def test_a_hand_runs_through_the_modules_the_architecture_names(people):
    modules, _calls = traced_hand(people)
    assert modules == ROUTE


def test_the_cycle_calls_back_up_into_the_game_only_through_its_adapter(people):
    _modules, calls = traced_hand(people)
    climbs = {callee for caller, callee in calls if floor(callee) > floor(caller)}
    assert climbs == {"matches/singapore/adapter.py"}
