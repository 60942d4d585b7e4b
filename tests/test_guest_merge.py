import pytest
from django.core.exceptions import ValidationError

from clubs import services
from clubs.models import Player
from matches.models import GameRecord, GameSeat
from matches.results.steps import record_game

pytestmark = pytest.mark.django_db

SHORT_SPAZZ = {
    "game": "spazzumazz",
    "players": ["Zio Pino", "Mia"],
    "finish_order": ["Mia", "Zio Pino"],
}


def play(club, guest, other):
    record = {
        **SHORT_SPAZZ,
        "players": [guest.display_name, other.display_name],
        "finish_order": [other.display_name, guest.display_name],
    }
    return record_game(
        club=club, record=record, players={guest.display_name: guest, other.display_name: other}
    )


def test_merging_a_guest_moves_their_games_to_the_member(people):
    club, guest = people["club"], people["guest"]
    scorer_player = club.players.get(user=people["scorer"])
    member_player = club.players.get(user=people["member"])
    games = [play(club, guest, scorer_player) for _ in range(3)]

    services.merge_players(source=guest, target=member_player)

    assert GameSeat.objects.filter(player=guest).count() == 0
    assert set(GameRecord.objects.of_player(member_player)) == set(games)
    guest.refresh_from_db()
    assert guest.merged_into == member_player
    assert guest not in Player.objects.active()


def test_a_guest_who_played_against_the_member_cannot_be_merged_into_them(people):
    club, guest = people["club"], people["guest"]
    member_player = club.players.get(user=people["member"])
    play(club, guest, member_player)
    with pytest.raises(ValidationError, match="same game"):
        services.merge_players(source=guest, target=member_player)
    guest.refresh_from_db()
    assert guest.merged_into is None
    assert GameSeat.objects.filter(player=guest).count() == 1


@pytest.mark.parametrize("case", ["member_as_source", "other_club", "itself"])
def test_impossible_merges_are_refused(people, make_user, case):
    club = people["club"]
    member_player = club.players.get(user=people["member"])
    if case == "member_as_source":
        source, target = member_player, club.players.get(user=people["scorer"])
    elif case == "other_club":
        source, target = services.add_guest(club=people["other"], display_name="X"), member_player
    else:
        source = target = people["guest"]
    with pytest.raises(ValidationError):
        services.merge_players(source=source, target=target)


def test_an_admin_merges_a_guest_from_the_members_page(client, people):
    club, guest = people["club"], people["guest"]
    member_player = club.players.get(user=people["member"])
    play(club, guest, club.players.get(user=people["scorer"]))
    client.force_login(people["admin"])
    response = client.post(
        f"/clubs/{club.slug}/members/merge/",
        {"source": guest.pk, "target": member_player.pk},
        follow=True,
    )
    assert response.status_code == 200
    assert GameRecord.objects.of_player(member_player).count() == 1


def test_a_merged_guests_name_can_be_reused(people):
    member_player = people["club"].players.get(user=people["member"])
    services.merge_players(source=people["guest"], target=member_player)
    again = services.add_guest(club=people["club"], display_name="Zio Pino")
    assert again.pk != people["guest"].pk


def test_a_player_with_games_cannot_be_deleted_but_their_club_can(people):
    from django.db.models import RestrictedError

    club, guest = people["club"], people["guest"]
    member_player = club.players.get(user=people["member"])
    play(club, guest, club.players.get(user=people["scorer"]))
    services.merge_players(source=guest, target=member_player)
    with pytest.raises(RestrictedError):
        member_player.delete()
    club.delete()
    assert not GameRecord.objects.exists()
    assert not Player.objects.filter(pk__in=[guest.pk, member_player.pk]).exists()


# --- Every relation to Player has a declared policy -------------------------------------------


def test_every_relation_to_a_player_declares_what_a_merge_does_with_it():
    from clubs.merge import relations

    found = {r.label: r.policy for r in relations()}
    assert {"matches.GameSeat.player", "clubs.Invitation.player"} <= set(found)
    assert [label for label, policy in found.items() if policy is None] == []


def test_a_relation_without_a_policy_is_found_and_stops_every_merge(people, monkeypatch):
    from clubs.merge import relations

    monkeypatch.setattr(GameSeat, "player_merge", {})
    assert [r.label for r in relations() if r.policy is None] == ["matches.GameSeat.player"]
    member_player = people["club"].players.get(user=people["member"])
    with pytest.raises(RuntimeError, match="matches.GameSeat.player"):
        services.merge_players(source=people["guest"], target=member_player)
    people["guest"].refresh_from_db()
    assert people["guest"].merged_into is None


def test_a_merge_revokes_the_guests_open_invitations_and_keeps_them_on_record(people):
    club, guest = people["club"], people["guest"]
    invitation = services.create_invitation(club=club, by=people["admin"], player=guest)
    services.merge_players(source=guest, target=club.players.get(user=people["member"]))
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    assert invitation.player_id == guest.pk


def test_a_refused_merge_names_every_game_problem_and_changes_nothing(people):
    club, guest = people["club"], people["guest"]
    member_player = club.players.get(user=people["member"])
    scorer_player = club.players.get(user=people["scorer"])
    play(club, guest, scorer_player)
    play(club, guest, member_player)
    with pytest.raises(ValidationError) as refused:
        services.merge_players(source=guest, target=member_player)
    assert refused.value.message_dict == {
        "target": ["Zio Pino and mia played in the same game: they cannot be merged."]
    }
    assert GameSeat.objects.filter(player=guest).count() == 2


def test_guests_merged_into_the_guest_follow_it(people):
    club, guest = people["club"], people["guest"]
    older = services.add_guest(club=club, display_name="Pino (vecchio)")
    services.merge_players(source=older, target=guest)
    member_player = club.players.get(user=people["member"])
    services.merge_players(source=guest, target=member_player)
    older.refresh_from_db()
    assert older.merged_into == member_player


# --- Two merges at once (PostgreSQL) ----------------------------------------------------------


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_two_opposite_merges_at_once_end_with_one_merge_and_no_deadlock(people):
    """A into B and B into A at the same moment: the ordered lock makes the second wait and
    then refuse ("already merged"), where locking one player after the other deadlocks."""
    import threading

    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("row locks and deadlocks need PostgreSQL (the integration run)")
    club = people["club"]
    a = services.add_guest(club=club, display_name="Guest A")
    b = services.add_guest(club=club, display_name="Guest B")
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def merge(source, target):
        from django.utils import translation

        try:
            barrier.wait()
            with translation.override("en"):
                services.merge_players(source=source, target=target)
            outcomes.append("merged")
        except ValidationError as error:
            outcomes.append(" ".join(error.messages))
        except Exception as error:  # noqa: BLE001 - a deadlock would surface here
            outcomes.append(f"{type(error).__name__}: {error}")
        finally:
            connections.close_all()

    for _ in range(5):
        a.refresh_from_db()
        b.refresh_from_db()
        Player.objects.filter(pk__in=[a.pk, b.pk]).update(merged_into=None)
        outcomes.clear()
        threads = [
            threading.Thread(target=merge, args=(a, b)),
            threading.Thread(target=merge, args=(b, a)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(outcomes) == ["This player has already been merged.", "merged"], outcomes
        merged = Player.objects.filter(pk__in=[a.pk, b.pk], merged_into__isnull=False)
        assert merged.count() == 1
