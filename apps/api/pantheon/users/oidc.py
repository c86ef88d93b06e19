"""Talking to OIDC providers with ``authlib``: discovery, the authorization URL (code flow
with PKCE S256, state and nonce), the code exchange and the ID token's validation.

Every request has the deadline ``PANTHEON_AUTH__OIDC_TIMEOUT_S``. A provider's discovery
document (``/.well-known/openid-configuration``) is kept for ``METADATA_TTL_S``; its key set
(JWKS) with it, fetched again once when a token names a key it does not hold (rotation).
The ID token's signature is checked against that key set with the algorithms the provider
announces (asymmetric only), then ``iss``, ``aud``, ``exp``, ``iat`` and ``nonce``.
Failures raise ``ProviderError`` (the provider could not be used) or ``TokenInvalid``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
from authlib.integrations.httpx_client import AsyncOAuth2Client, OAuthError
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

from pantheon.users.oidc_config import OidcProvider

METADATA_TTL_S = 3600.0
LEEWAY_S = 60  # clock skew allowed on exp and iat
# A key set from the provider signs with a private key; "none" and shared-secret
# algorithms are never accepted, whatever the discovery document says.
ALLOWED_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)


class ProviderError(Exception):
    """The provider could not be reached, or answered something unusable."""


class TokenInvalid(Exception):
    """The ID token failed validation (signature, issuer, audience, expiry or nonce)."""


@dataclass(slots=True)
class Metadata:
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    algorithms: list[str]
    fetched_at: float
    keys: KeySet | None = None


class OidcClients:
    """The configured providers and what was learnt about each (this process's cache)."""

    def __init__(self, providers: dict[str, OidcProvider], timeout_s: float) -> None:
        self.providers = providers
        self.timeout_s = timeout_s
        self._metadata: dict[str, Metadata] = {}

    def get(self, name: str) -> OidcProvider | None:
        return self.providers.get(name)

    async def authorization_url(
        self, provider: OidcProvider, redirect_uri: str, state: str, nonce: str, verifier: str
    ) -> str:
        meta = await self._discover(provider)
        client = self._oauth(provider, redirect_uri)
        async with client:
            url, _state = client.create_authorization_url(
                meta.authorization_endpoint, state=state, code_verifier=verifier, nonce=nonce
            )
        return str(url)

    async def exchange(
        self, provider: OidcProvider, redirect_uri: str, code: str, verifier: str
    ) -> str:
        """The ID token the provider gives for ``code`` (its token endpoint, with the PKCE
        verifier and the client secret)."""
        meta = await self._discover(provider)
        try:
            async with self._oauth(provider, redirect_uri) as client:
                token = await client.fetch_token(
                    meta.token_endpoint,
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=verifier,
                )
        except OAuthError as exc:
            raise ProviderError(f"token endpoint refused the code: {exc.error}") from exc
        except (httpx2.HTTPError, ValueError) as exc:
            raise ProviderError(f"token endpoint: {type(exc).__name__}") from exc
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise ProviderError("token endpoint answered without an id_token")
        return id_token

    async def claims(self, provider: OidcProvider, id_token: str, nonce: str) -> dict[str, Any]:
        """The validated claims of ``id_token``; ``TokenInvalid`` otherwise."""
        meta = await self._discover(provider)
        registry = JWSRegistry(algorithms=meta.algorithms)
        try:
            try:
                decoded = jwt.decode(id_token, await self._keys(meta), registry=registry)
            except InvalidKeyIdError:  # a key the provider rotated in since we fetched
                meta.keys = None
                decoded = jwt.decode(id_token, await self._keys(meta), registry=registry)
            options = {
                "iss": {"essential": True, "value": provider.issuer},
                "aud": {"essential": True, "value": provider.client_id},
            }
            params = {"nonce": nonce, "client_id": provider.client_id}
            claims = CodeIDToken(decoded.claims, decoded.header, options, params)
            claims.validate(leeway=LEEWAY_S)
        except (JoseError, ValueError) as exc:
            raise TokenInvalid(f"{type(exc).__name__}: {exc}") from exc
        if claims.get("nonce") != nonce:  # CodeIDToken accepts a token with no nonce
            raise TokenInvalid("the nonce does not match this sign-in")
        return dict(claims)

    def _oauth(self, provider: OidcProvider, redirect_uri: str) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=provider.client_id,
            client_secret=provider.client_secret,
            scope=" ".join(provider.scopes),
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
            timeout=self.timeout_s,
        )

    async def _discover(self, provider: OidcProvider) -> Metadata:
        cached = self._metadata.get(provider.name)
        if cached is not None and time.monotonic() - cached.fetched_at < METADATA_TTL_S:
            return cached
        url = provider.issuer.rstrip("/") + "/.well-known/openid-configuration"
        document = await self._get_json(url)
        if document.get("issuer") != provider.issuer:
            raise ProviderError(f"discovery names issuer {document.get('issuer')!r}")
        try:
            offered = document.get("id_token_signing_alg_values_supported") or ["RS256"]
            meta = Metadata(
                authorization_endpoint=str(document["authorization_endpoint"]),
                token_endpoint=str(document["token_endpoint"]),
                jwks_uri=str(document["jwks_uri"]),
                algorithms=[a for a in offered if a in ALLOWED_ALGORITHMS],
                fetched_at=time.monotonic(),
            )
        except KeyError as exc:
            raise ProviderError(f"discovery document lacks {exc.args[0]}") from None
        if not meta.algorithms:
            raise ProviderError(f"no accepted ID token algorithm among {offered}")
        self._metadata[provider.name] = meta
        return meta

    async def _keys(self, meta: Metadata) -> KeySet:
        if meta.keys is None:
            try:
                meta.keys = KeySet.import_key_set(await self._get_json(meta.jwks_uri))  # type: ignore[arg-type]
            except (JoseError, ValueError) as exc:
                raise ProviderError(f"unusable key set: {type(exc).__name__}") from exc
        return meta.keys

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as http:
                response = await http.get(url)
                response.raise_for_status()
                document = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise ProviderError(f"{url}: {type(exc).__name__}") from exc
        if not isinstance(document, dict):
            raise ProviderError(f"{url}: not a JSON object")
        return document
