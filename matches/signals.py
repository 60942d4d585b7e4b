"""What the boards hear from the floor below: a player renamed, added or removed.

The leaderboards, player pages and club nights show players' names from their cached
pages; ``clubs`` cannot bump the boards (it sits below ``matches``), so the boards listen.
"""

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from clubs.models import Player
from matches import boards


@receiver(post_save, sender=Player)
@receiver(post_delete, sender=Player)
def _player_changed(sender, instance: Player, **kwargs) -> None:
    club_id = instance.club_id
    transaction.on_commit(lambda: boards.bump(club_id))
