from django.core.management.base import BaseCommand

from clubs.inbox.vapid import new_pair


class Command(BaseCommand):
    help = "Print a new VAPID key pair for Web Push, as environment variables to set."

    def handle(self, *args, **options):
        public, private = new_pair()
        self.stdout.write(f"VAPID_PUBLIC_KEY={public}\nVAPID_PRIVATE_KEY={private}\n")
