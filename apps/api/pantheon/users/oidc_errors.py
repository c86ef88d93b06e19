"""The fixed set of reasons an OIDC sign-in fails, sent to the page as
``/?signin_error=<code>`` (docs/security.md lists them; the page words each one)."""

from __future__ import annotations

from enum import StrEnum


class SigninError(StrEnum):
    STATE = "state"  # the sign-in's state was missing, altered, expired or already used
    DENIED = "denied"  # the provider did not authorize (the person cancelled, or it refused)
    PROVIDER = "provider"  # the provider could not be reached, or refused the code
    TOKEN = "token"  # the ID token failed validation (signature, iss, aud, exp, nonce)
    DOMAIN = "domain"  # no verified email in one of the provider's allowed_domains
    REFUSED = "refused"  # sign-up is closed and no account has this verified email
    PENDING = "pending"  # the account waits for an admin's approval
    DISABLED = "disabled"  # the account is disabled
    BUSY = "busy"  # this address started too many sign-ins this minute


class SigninRefused(Exception):
    """A sign-in that ends with ``code`` (the detail goes to the log, never the page)."""

    def __init__(self, code: SigninError, detail: str = "") -> None:
        super().__init__(detail or code.value)
        self.code = code
