"""The site's VAPID key pair for Web Push, in the forms the settings take: the private key
as base64url DER (``VAPID_PRIVATE_KEY``), the public key as the base64url uncompressed point
that browsers take as ``applicationServerKey`` (``VAPID_PUBLIC_KEY``)."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_pair() -> tuple[str, str]:
    """(public, private) for the settings."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), b64url(private)
