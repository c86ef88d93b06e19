"""The OIDC sign-in tables (docs/adr/0041): who a provider's subject is here, and the
sign-ins under way between ``/auth/oidc/NAME/login`` and its callback.

Apart from ``models.py`` only for size; both register on the same metadata, and
``alembic/env.py`` imports both."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from pantheon.db.base import Base, Timestamped, UUIDPrimaryKey


class OidcIdentity(UUIDPrimaryKey, Timestamped, Base):
    """A provider's subject (``sub``) signs in as ``user_id``: found by (provider, subject),
    never by email once linked."""

    __tablename__ = "oidc_identities"
    __table_args__ = (UniqueConstraint("provider", "subject", name="uq_oidc_identities_subject"),)
    provider: Mapped[str] = mapped_column(String(64))
    subject: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    email: Mapped[str | None] = mapped_column(String(320), default=None)  # as last seen
    last_signin_at: Mapped[datetime] = mapped_column()


class OidcLogin(Base):
    """A sign-in under way: only the SHA-256 of its ``state`` is stored, beside the nonce
    and PKCE verifier the callback needs. The callback deletes the row (used once)."""

    __tablename__ = "oidc_logins"
    state_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    provider: Mapped[str] = mapped_column(String(64))
    nonce: Mapped[str] = mapped_column(String(64))
    code_verifier: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column()
    expires_at: Mapped[datetime] = mapped_column(index=True)
