"""The Content-Security-Policy (settings.CONTENT_SECURITY_POLICY, sent by django-csp).

Every page of ours runs only scripts and styles from our own static files: no inline
``<script>``, no ``on...=`` handler, no ``style=`` attribute (the templates use classes, and
``circolo/site.js`` wires behaviour through ``data-`` attributes). Public pages are served
whole from the cache (``plumbing.public_pages``), so the policy uses no nonce.

One exception: pages built from other projects' templates, the Django admin and DRF's
browsable API (and the Swagger UI) under ``/admin/`` and ``/api/``, carry ``style=``
attributes and ``<style>`` blocks of their own; there inline styles are allowed. Scripts stay
``'self'`` everywhere.
"""

from csp.constants import UNSAFE_INLINE
from csp.middleware import CSPMiddleware, PolicyParts

INLINE_STYLES_UNDER = ("/admin/", "/api/")


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    def get_policy_parts(self, request, response, report_only=False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if request.path_info.startswith(INLINE_STYLES_UNDER):
            styles = (parts.update or {}).get("style-src", [])
            parts.update = {**(parts.update or {}), "style-src": [*styles, UNSAFE_INLINE]}
        return parts
