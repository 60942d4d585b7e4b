"""Where a webhook may send (SSRF): an http(s) URL whose host stands only for public
addresses, unless ``settings.WEBHOOK_ALLOW_PRIVATE`` (tests, a club's own network).

The hazards, and what answers each:

- *A URL naming the server itself or its network* (``http://127.0.0.1:6379/``,
  ``http://10.0.0.5/``, ``http://[::1]/``, ``http://169.254.169.254/`` the cloud's metadata):
  refused when registered, naming ``url``.
- *A host name that resolves to such an address*, at once (``localhost``) or later (DNS
  rebinding: public when registered, private when delivered): every address the name
  resolves to is checked at registration, and again at each delivery, which then connects
  to the very address it checked (:func:`public_addresses`), never resolving twice.
- *Another scheme* (``ftp://``, ``file://``, ``gopher://``): refused.
- *A redirect to a private address*: deliveries follow no redirect.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

SCHEMES = {"http": 80, "https": 443}
MAX_URL_LENGTH = 500


class Refused(ValueError):
    """A URL a webhook may not use; ``str()`` says why, for people."""


def _refused(message: str) -> Refused:
    return Refused(message)


def parts(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an http(s) URL; :class:`Refused` for anything else."""
    text = str(url or "").strip()
    if not text:
        raise _refused(_("Give the address that receives the events."))
    if len(text) > MAX_URL_LENGTH or any(c.isspace() or ord(c) < 32 for c in text):
        raise _refused(_("This is not a web address."))
    try:
        split = urlsplit(text)
        port = split.port
    except ValueError:
        raise _refused(_("This is not a web address.")) from None
    scheme = split.scheme.lower()
    if scheme not in SCHEMES:
        raise _refused(_("Only http:// and https:// addresses can receive webhooks."))
    host = split.hostname
    if not host:
        raise _refused(_("This address names no host."))
    if split.fragment:
        raise _refused(_("A webhook's address has no #fragment."))
    return scheme, host, port or SCHEMES[scheme]


def forbidden(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether an address is the server's own or its network's: loopback, private,
    link-local, multicast, reserved, unspecified, shared (carrier-grade NAT), or an IPv6
    address standing for such an IPv4 one."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is None and address.teredo:
            inner = address.teredo[1]
        if inner is not None and forbidden(inner):
            return True
    return (
        not address.is_global
        or address.is_multicast
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
    )


def _resolve(host: str, port: int) -> list[str]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError):
        raise _refused(_("The host %(host)s cannot be found.") % {"host": host}) from None
    addresses = []
    for _family, _type, _proto, _name, sockaddr in found:
        if sockaddr[0] not in addresses:
            addresses.append(sockaddr[0])
    return addresses


def public_addresses(url: str, *, allow_private: bool | None = None) -> list[str]:
    """The addresses ``url``'s host stands for, to connect to: :class:`Refused` unless it
    is an http(s) URL and every one of them is public (or private ones are allowed)."""
    if allow_private is None:
        allow_private = settings.WEBHOOK_ALLOW_PRIVATE
    _scheme, host, port = parts(url)
    addresses = _resolve(host, port)
    if not addresses:
        raise _refused(_("The host %(host)s cannot be found.") % {"host": host})
    if not allow_private:
        for text in addresses:
            if forbidden(ipaddress.ip_address(text.split("%", 1)[0])):
                raise _refused(
                    _(
                        "%(host)s is a private or local address: webhooks go to public "
                        "addresses only."
                    )
                    % {"host": host}
                )
    return addresses


def check_url(url: str) -> str:
    """The URL, trimmed, if a webhook may use it; ``ValidationError`` naming ``url``."""
    try:
        public_addresses(url)
    except Refused as refused:
        raise ValidationError({"url": str(refused)}) from None
    return str(url).strip()
