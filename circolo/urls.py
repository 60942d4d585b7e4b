from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from circolo.api import ObtainAuthToken
from circolo.health import health
from clubs import api as clubs_api
from clubs import views as clubs_views
from matches.singapore import api as singapore_api

router = DefaultRouter()
router.register("clubs", clubs_api.ClubViewSet, basename="club")
router.register("players", clubs_api.PlayerViewSet, basename="player")
router.register("memberships", clubs_api.MembershipViewSet, basename="membership")
router.register("seasons", clubs_api.SeasonViewSet, basename="season")
router.register("invitations", clubs_api.InvitationViewSet, basename="invitation")
singapore_api.register(router)

urlpatterns = [
    path("", clubs_views.home, name="home"),
    path("", include("clubs.urls")),
    path("clubs/<slug:slug>/", include("matches.singapore.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("health/", health, name="health"),
    path("api/v1/", include(router.urls)),
    path("api/v1/auth/token/", ObtainAuthToken.as_view(), name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]
