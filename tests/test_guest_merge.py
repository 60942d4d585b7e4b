import pytest
from django.core.exceptions import ValidationError

from clubs import services
from clubs.models import Player
from matches.models import GameRecord, GameSeat
from matches.services import record_game

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
