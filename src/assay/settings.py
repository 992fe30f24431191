"""Typed settings with one documented precedence.

Highest first: arguments passed in code or on the command line, then ``ASSAY_*``
environment variables, then the TOML file (``$ASSAY_CONFIG``, else ``./assay.toml``
if it exists), then the defaults below.

========================  ==========================  ===============================
setting                   environment                 meaning
========================  ==========================  ===============================
``db``                    ``ASSAY_DB``                the SQLite database file, or a
                                                      ``postgresql://`` URL
``pg_pool_size``          ``ASSAY_PG_POOL_SIZE``      PostgreSQL connections a process
                                                      holds at most (default 10)
``pg_hnsw_m``             ``ASSAY_PG_HNSW_M``         the HNSW index's graph degree
                                                      (default 16; set before the
                                                      first ingest)
``pg_hnsw_ef_construction`` ``ASSAY_PG_HNSW_EF_CONSTRUCTION`` candidates kept while
                                                      building it (default 64)
``pg_ef_search``          ``ASSAY_PG_EF_SEARCH``      candidates kept while searching
                                                      (default 200; never below k)
``uploads_dir``           ``ASSAY_UPLOADS_DIR``       where ``/v1/ingest`` keeps uploads
                                                      (default: ``uploads/`` beside the
                                                      SQLite file; ``./uploads`` with
                                                      PostgreSQL)
``policy_dirs``           ``ASSAY_POLICY_DIRS``       folders of user policy ``*.toml``
                                                      (separated by ``:``)
``default_policy``        ``ASSAY_DEFAULT_POLICY``    policy used when none is named
``severity_policies``     ``ASSAY_SEVERITY_POLICIES`` severity -> policy name (JSON)
``embedder``              ``ASSAY_EMBEDDER``          the knowledge base's embedder
                                                      (``minilm``; ``hashing`` for tests)
``relevance_model``       ``ASSAY_RELEVANCE_MODEL``   scores retrieved chunks
                                                      (``assay-relevance``; ``none``:
                                                      the cosine mapping only)
``support_model``         ``ASSAY_SUPPORT_MODEL``     claim-evidence support
                                                      (``assay-support-stack``; ``none``:
                                                      lexical corroboration only)
``correctness_model``     ``ASSAY_CORRECTNESS_MODEL`` rates whether an answer is right
                                                      (``assay-correctness``, a folder
                                                      with ``model.json``; ``none``:
                                                      the judge's support score only;
                                                      the default asks the LLM endpoint
                                                      too when it serves the model
                                                      ``assay-correctness-llm`` was
                                                      fitted with)
``reader_model``          ``ASSAY_READER_MODEL``      finds the span that answers
                                                      (``assay-reader``, a folder;
                                                      ``none``: no reader, and no
                                                      correctness model either)
``answerer``              ``ASSAY_ANSWERER``          writes answers (``extractive``:
                                                      cited sentences, offline;
                                                      ``llm``: the LLM endpoint)
``judge``                 ``ASSAY_JUDGE``             rates answers (``assay-judge``:
                                                      offline; ``llm``: the endpoint,
                                                      falling back to ``assay-judge``)
``monitor_window``        ``ASSAY_MONITOR_WINDOW``    events in the current window of
                                                      drift checks (J9; default 200)
``monitor_baseline``      ``ASSAY_MONITOR_BASELINE``  events in the baseline before it
                                                      (default 1000)
``auto_tighten``          ``ASSAY_AUTO_TIGHTEN``      raise a drifting policy's
                                                      thresholds by this while its
                                                      alert is open (E12; 0..0.5,
                                                      0 = off)
``audit_key_file``        ``ASSAY_AUDIT_KEY_FILE``    the key that seals audit rows
                                                      (``assay audit keygen``; kept
                                                      away from the database)
``audit_retired_key_files`` ``ASSAY_AUDIT_RETIRED_KEY_FILES`` earlier audit keys, which
                                                      still check the rows they sealed
                                                      (separated by ``:``; ``assay audit
                                                      retire`` writes each one's last row)
``audit_checkpoint_file`` ``ASSAY_AUDIT_CHECKPOINT_FILE`` checkpoints ``assay serve``
                                                      keeps: it checks the newest before
                                                      it starts, appends one at start,
                                                      after every row it commits (about
                                                      250 bytes a row) and at shutdown
                                                      (kept away from the database's
                                                      writers)
``ingest_max_file_mb``    ``ASSAY_INGEST_MAX_FILE_MB``  the largest file ingest reads
                                                      (default 64; an upload too)
``ingest_max_file_seconds`` ``ASSAY_INGEST_MAX_FILE_SECONDS`` the longest one file may
                                                      take to read, chunk and embed
                                                      (default 1800)
``access_labels_required`` ``ASSAY_ACCESS_LABELS_REQUIRED`` refuse to ingest a document
                                                      without access labels (default
                                                      false: unlabelled documents are
                                                      readable by every key)
``encoding_cache_mb``     ``ASSAY_ENCODING_CACHE_MB`` token states of texts kept in
                                                      memory, so no text is encoded
                                                      twice (default 256)
``encoding_store_mb``     ``ASSAY_ENCODING_STORE_MB`` the same on disk, shared by the
                                                      processes of a machine and filled
                                                      at ingest (default 1024; 0: off)
``encoding_store``        ``ASSAY_ENCODING_STORE``    that file (default: beside the
                                                      SQLite file, ``<name>.encodings.db``;
                                                      none with PostgreSQL unless set)
``support_labels``        ``ASSAY_SUPPORT_LABELS``    the logit columns of a user's
                                                      ``cross-encoder:PATH`` support
                                                      model, comma-separated
``data``                  ``ASSAY_DATA``              the public datasets' folder that
                                                      ``assay calibrate labels`` reads
``debug``                 ``ASSAY_DEBUG``             print the traceback of an
                                                      internal error
``serve``                 ``ASSAY_SERVE_*``           the options of ``assay serve``
                                                      (:class:`ServeSettings`), set by
                                                      the command for its workers
``llm``                   ``ASSAY_LLM_URL``,          the OpenAI-compatible endpoint
                          ``ASSAY_LLM_MODEL``,        (:class:`LLMSettings`); unset URL:
                          ``ASSAY_LLM_API_KEY``,      assay stays offline
                          ``ASSAY_LLM_TIMEOUT``
========================  ==========================  ===============================

The LLM endpoint is read from arguments and the environment only, never from the TOML
file (a ``[llm]`` table there is refused), and its API key is a secret: it never
appears in a repr, a log line or a dump of the settings.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from assay.errors import InvalidInputError, did_you_mean

MIB = 1 << 20
_SERVE = "ASSAY_SERVE_"


class LLMSettings(BaseModel):
    """The OpenAI-compatible endpoint: ``ASSAY_LLM_URL``, ``_MODEL``, ``_API_KEY``,
    ``_TIMEOUT``, from arguments or the environment only (never a file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = ""
    model: str = "default"
    api_key: SecretStr | None = None
    timeout: float = 30.0

    @field_validator("url", "model", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value

    @field_validator("api_key", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @property
    def configured(self) -> bool:
        """Whether an endpoint is set at all (no URL: assay stays offline)."""
        return bool(self.url)


def _variables(
    prefix: str, names: Iterable[str], environ: Mapping[str, str] | None
) -> dict[str, str]:
    """The set variables ``<prefix><NAME>`` of ``environ`` (default: this process's), by
    field name. Names match in any case; an empty variable counts as unset."""
    env = os.environ if environ is None else environ
    by_upper = {key.upper(): value for key, value in env.items() if value != ""}
    return {name: by_upper[f"{prefix}{name.upper()}"] for name in names
            if f"{prefix}{name.upper()}" in by_upper}  # fmt: skip


def load_llm_settings(environ: Mapping[str, str] | None = None) -> LLMSettings:
    """The endpoint from ``environ`` (default: this process's environment), validated;
    a value that does not parse is an error naming its variable."""
    try:
        return LLMSettings.model_validate(
            _variables("ASSAY_LLM_", LLMSettings.model_fields, environ)
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        name = f"ASSAY_LLM_{str(error['loc'][0]).upper()}"
        raise InvalidInputError(name, error.get("input"), "give seconds, e.g. 30") from None


class ServeSettings(BaseModel):
    """The options of ``assay serve`` that each worker's app is built with.

    uvicorn starts each worker from an import string, without arguments, so the command
    hands them over in the environment: one ``ASSAY_SERVE_*`` variable each, set by
    :meth:`to_environment` and read back, validated with the command's own bounds, by
    :meth:`from_environment` (the default of :attr:`Settings.serve`). A bad value fails
    with the variable's name.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_body_bytes: int = Field(2 * MIB, ge=10_000, le=1024 * MIB)  #: largest JSON body
    max_upload_bytes: int = Field(64 * MIB, ge=10_000, le=4096 * MIB)  #: largest upload
    monitor_every: float = Field(60.0, ge=0)  #: seconds between drift checks (0: never)
    session_hours: float = Field(8.0, ge=0.01, le=24 * 90)  #: a dashboard login's life
    secure_cookies: bool = False  #: Secure session cookies even on plain http
    rate_limit: int = Field(0, ge=0, le=1_000_000)  #: requests a minute per key (0: none)

    def to_environment(self) -> dict[str, str]:
        """The ``ASSAY_SERVE_*`` variables that carry these options to a worker."""
        return {
            f"{_SERVE}{name.upper()}": ("1" if value else "") if isinstance(value, bool)
            else str(value)
            for name, value in self.model_dump().items()
        }  # fmt: skip

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> ServeSettings:
        """The options in ``environ`` (default: this process's), defaults where unset."""
        env = os.environ if environ is None else environ
        given: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            raw = env.get(f"{_SERVE}{name.upper()}")
            if raw is not None:
                given[name] = bool(raw) if field.annotation in (bool, "bool") else raw
        try:
            return cls.model_validate(given)
        except ValidationError as exc:
            error = exc.errors()[0]
            name = str(error["loc"][0])
            raise InvalidInputError(
                f"{_SERVE}{name.upper()}", given.get(name),
                f"give {error['msg'].lower()}, or unset it (`assay serve --help` lists them)",
            ) from None  # fmt: skip


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: object) -> bool:
    """True for a server URL (``scheme://...``), False for a file path."""
    return isinstance(target, str) and "://" in target


def database_target(value: Any) -> Any:
    """A ``scheme://`` URL stays text (a path would fold its ``//``); the rest is a path."""
    if is_database_url(value):
        if not value.startswith(POSTGRES_SCHEMES):
            raise ValueError(
                "a database URL must start with postgresql:// (or give an SQLite file path)"
            )
        return value
    return Path(value) if isinstance(value, str) else value


class Settings(BaseModel):
    """Process-wide configuration of assay; :func:`load_settings` builds it from its
    sources (see the module docstring for their precedence)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    db: Annotated[Path | str, BeforeValidator(database_target)] = Path("assay.db")
    policy_dirs: list[Path] = []
    default_policy: str = "informational"
    embedder: str = "minilm"
    relevance_model: str = "assay-relevance"
    support_model: str = "assay-support-stack"
    correctness_model: str = "assay-correctness"
    reader_model: str = "assay-reader"
    answerer: Literal["extractive", "llm"] = "extractive"
    judge: Literal["assay-judge", "llm"] = "assay-judge"
    severity_policies: dict[str, str] = {}
    monitor_window: Annotated[int, Field(ge=1, le=1_000_000)] = 200
    monitor_baseline: Annotated[int, Field(ge=1, le=1_000_000)] = 1000
    auto_tighten: Annotated[float, Field(ge=0.0, le=0.5)] = 0.0
    audit_key_file: Path | None = None
    audit_retired_key_files: list[Path] = []
    audit_checkpoint_file: Path | None = None
    ingest_max_file_mb: Annotated[float, Field(gt=0)] = 64.0
    ingest_max_file_seconds: Annotated[float, Field(gt=0)] = 1800.0
    access_labels_required: bool = False
    encoding_cache_mb: Annotated[float, Field(ge=0)] = 256.0
    encoding_store_mb: Annotated[float, Field(ge=0)] = 1024.0
    encoding_store: Path | None = None
    support_labels: str = "contradicted,supported,unsupported"
    data: Path = Path("../shared/data")
    debug: bool = False
    pg_pool_size: Annotated[int, Field(ge=1, le=1000)] = 10
    pg_hnsw_m: Annotated[int, Field(ge=2, le=100)] = 16
    pg_hnsw_ef_construction: Annotated[int, Field(ge=4, le=1000)] = 64
    pg_ef_search: Annotated[int, Field(ge=1, le=1000)] = 200
    uploads_dir: Path | None = None
    llm: LLMSettings = Field(default_factory=load_llm_settings)
    serve: ServeSettings = Field(default_factory=ServeSettings.from_environment)

    @property
    def database_url(self) -> str | None:
        """The PostgreSQL URL when ``db`` is one; ``None`` for an SQLite file."""
        return self.db if isinstance(self.db, str) else None

    @property
    def db_file(self) -> Path | None:
        """The SQLite file, as an absolute path; ``None`` for a PostgreSQL URL."""
        return None if isinstance(self.db, str) else self.db.expanduser().resolve()

    @property
    def database_label(self) -> str:
        """How messages that may leave the machine name the database: the file's name,
        or the database's name on its server (never a host or a password)."""
        if isinstance(self.db, str):
            return "postgresql database " + self.db.rsplit("/", 1)[-1].split("?")[0]
        return self.db.name

    @property
    def uploads_root(self) -> Path:
        """The folder ``/v1/ingest`` keeps uploaded files in (see ``uploads_dir``)."""
        if self.uploads_dir is not None:
            return self.uploads_dir.expanduser().resolve()
        beside = Path.cwd() if isinstance(self.db, str) else self.db.expanduser().resolve().parent
        return beside / "uploads"

    @property
    def encoding_store_file(self) -> Path | None:
        """The disk tier of the encoding cache (see ``encoding_store``); ``None``: off."""
        if self.encoding_store_mb == 0:
            return None
        if self.encoding_store is not None:
            return self.encoding_store.expanduser().resolve()
        db = self.db_file
        return None if db is None else db.with_name(db.stem + ".encodings.db")

    @field_validator("policy_dirs", "audit_retired_key_files", mode="before")
    @classmethod
    def _split_dirs(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [Path(p) for p in value.split(os.pathsep) if p.strip()]
        return value


_FROM_JSON = ("severity_policies",)  #: variables that hold JSON (the rest: plain text)
_OWN_VARIABLES = ("llm", "serve")  #: read by their own loaders (``ASSAY_LLM_*``, ``ASSAY_SERVE_*``)


def environment_settings(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings that ``ASSAY_*`` variables give, unvalidated; JSON ones decoded."""
    names = [name for name in Settings.model_fields if name not in _OWN_VARIABLES]
    given: dict[str, Any] = _variables("ASSAY_", names, environ)
    for name in _FROM_JSON:
        if name in given:
            try:
                given[name] = json.loads(given[name])
            except json.JSONDecodeError:
                raise InvalidInputError(
                    f"ASSAY_{name.upper()}", given[name],
                    'fix the ASSAY_* variable: give a JSON object, e.g. {"high": "financial"}',
                ) from None  # fmt: skip
    return given


def file_settings() -> dict[str, Any]:
    """The settings of the TOML file in force (:func:`config_file`; none: ``{}``). An
    ``[llm]`` or ``[serve]`` table is refused: the endpoint and its key come from the
    environment only, the serve options from the command."""
    path = config_file()
    if path is None:
        return {}
    with path.open("rb") as handle:
        values = tomllib.load(handle)
    if "serve" in values:
        raise InvalidInputError(
            "config file", str(path),
            "remove the [serve] table: give them as `assay serve` options",
            problem="holds the options of assay serve",
        )  # fmt: skip
    if "llm" in values:
        raise InvalidInputError(
            "config file",
            str(path),
            "remove the [llm] table: set ASSAY_LLM_URL, ASSAY_LLM_MODEL, ASSAY_LLM_API_KEY "
            "and ASSAY_LLM_TIMEOUT in the environment instead",
            problem="holds the LLM endpoint",
        )
    return values


def with_names(settings: Settings, names: Mapping[str, str]) -> Settings:
    """``settings`` with some model names replaced (``{"judge": "llm"}``), each checked
    as the setting itself would be."""
    for name, value in names.items():
        try:
            TypeAdapter(Settings.model_fields[name].annotation or str).validate_python(value)
        except ValidationError as exc:
            message = exc.errors()[0]["msg"]
            raise InvalidInputError(name, value, f"{message} (as the setting {name})") from None
    return settings.model_copy(update=dict(names))


def config_file() -> Path | None:
    """The TOML settings file in force: ``$ASSAY_CONFIG`` or ``./assay.toml`` if present."""
    explicit = os.environ.get("ASSAY_CONFIG")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise InvalidInputError("ASSAY_CONFIG", explicit, "point it at an existing TOML file")
        return path
    local = Path("assay.toml")
    return local if local.is_file() else None


def load_settings(**overrides: Any) -> Settings:
    """Build :class:`Settings` from the arguments given (``None``: not given), the
    ``ASSAY_*`` environment and the TOML file, highest first; a source replaces a
    lower one's value whole. A bad value fails with one message that names it."""
    try:
        values = file_settings()
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            "config file", str(config_file()), f"fix the TOML syntax ({exc})"
        ) from None
    values |= environment_settings()
    values |= {name: value for name, value in overrides.items() if value is not None}
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        if first["type"] == "extra_forbidden":  # a typo, most likely in assay.toml
            known = [n for n in Settings.model_fields if n not in ("serve", "llm")]
            raise InvalidInputError(
                f"setting {where}",
                first.get("input"),
                f"{did_you_mean(where, known)}the settings are listed in examples/assay.toml",
                problem=f"is not a setting (in {config_file() or 'the arguments'})",
            ) from None
        raise InvalidInputError(
            f"setting {where}",
            first.get("input"),
            f"{first['msg']} (set by argument, ASSAY_{where.upper()} or the config file)",
        ) from None
