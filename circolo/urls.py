from django.contrib import admin
from django.contrib.auth.views import LoginView, PasswordResetView
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

import circolo.pwa as pwa
from circolo.health import health
from circolo.views import favicon
from clubs import api as clubs_api
from clubs import views as clubs_views
from clubs.forms import LoginForm
from clubs.inbox import api as inbox_api
from clubs.models import Game
from clubs.throttles import PASSWORD_RESET, limit_mails
from clubs.token_api import ObtainAuthToken
from clubs.webhooks import api as webhooks_api
from ledger import api as ledger_api
from matches.boards import api as boards_api
from matches.championship import api as championship_api
from matches.nights import api as nights_api
from matches.singapore import api as singapore_api
from matches.spazzumazz import api as spazzumazz_api
from matches.sputo import api as sputo_api

router = DefaultRouter()
router.register("clubs", clubs_api.ClubViewSet, basename="club")
router.register("players", clubs_api.PlayerViewSet, basename="player")
router.register("memberships", clubs_api.MembershipViewSet, basename="membership")
router.register("seasons", clubs_api.SeasonViewSet, basename="season")
router.register("invitations", clubs_api.InvitationViewSet, basename="invitation")
router.register("webhooks", webhooks_api.WebhookViewSet, basename="webhook")
router.register("ledger/balances", ledger_api.BalanceViewSet, basename="ledger-balance")
router.register("ledger/settle-up", ledger_api.SettleUpViewSet, basename="ledger-settle-up")
router.register("ledger/debts", ledger_api.DebtViewSet, basename="ledger-debt")
router.register("ledger/payments", ledger_api.PaymentViewSet, basename="ledger-payment")
router.register("ledger/statements", ledger_api.StatementViewSet, basename="ledger-statement")
sputo_api.register(router)
singapore_api.register(router)

spazzumazz_api.register(router)
inbox_api.register(router)
nights_api.register(router)

# Routes under the clubs' and players' prefixes served by matches/ (clubs/api.py may not
# import it): listed before the router, whose patterns they do not overlap.
boards_api_urls = [
    path(
        "clubs/<slug:slug>/idiot-stats/",
        spazzumazz_api.IdiotStatsView.as_view(),
        name="club-idiot-stats",
    ),
    # One route per game (an unknown game matches none: a JSON 404), one name for them.
    *(
        path(
            f"clubs/<slug:slug>/leaderboards/{game}/",
            boards_api.leaderboard_view(game),
            name="club-leaderboards",
        )
        for game in Game.values
    ),
    path(
        "seasons/<int:pk>/championship/",
        championship_api.ChampionshipView.as_view(),
        name="season-championship",
    ),
    path(
        "seasons/<int:pk>/standings/",
        championship_api.StandingsView.as_view(),
        name="season-standings",
    ),
    path("seasons/<int:pk>/final/", championship_api.FinalView.as_view(), name="season-final"),
    path(
        "players/<int:pk>/ratings/", boards_api.PlayerRatingsView.as_view(), name="player-ratings"
    ),
    path(
        "players/<int:pk>/head-to-head/",
        spazzumazz_api.HeadToHeadView.as_view(),
        name="player-head-to-head",
    ),
]

urlpatterns = [
    path("", clubs_views.home, name="home"),
    path("", include("clubs.urls")),
    path("", include("clubs.webhooks.urls")),
    # Django's login page, whose form also explains an account waiting for its confirmation.
    path("accounts/login/", LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("", include("ledger.urls")),
    path("", include("matches.sputo.urls")),
    path("clubs/<slug:slug>/", include("matches.singapore.urls")),
    # Django's own, each request counted against the rate limits of mails (clubs.throttles).
    path(
        "accounts/password_reset/",
        limit_mails(PASSWORD_RESET)(PasswordResetView.as_view()),
        name="password_reset",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("health/", health, name="health"),
    path("", include("matches.boards.urls")),
    path("", include("matches.spazzumazz.urls")),
    path("", include("matches.championship.urls")),
    path("", include("matches.nights.urls")),
    path("api/v1/", include(boards_api_urls)),
    path("favicon.ico", favicon, name="favicon"),
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service-worker"),
    path("offline/", pwa.offline, name="offline"),
    path("api/v1/", include(router.urls)),
    path("api/v1/auth/token/", ObtainAuthToken.as_view(), name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file (the CSP allows no inline script).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
]

# An exception in a view: the site's page, or under /api/ the API's JSON error body.
handler500 = "circolo.views.server_error"
