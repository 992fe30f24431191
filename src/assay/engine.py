"""``Assay``: the registry, the policies and the audit log of one database, together.

This is the object most users touch::

    from assay import Assay, Candidate

    with Assay("assay.db") as engine:
        engine.sources.add("sds-2026", "official", owner="Acme Safety")
        result = engine.score("max operating temperature?", candidates, policy="safety_critical")
        for item in result.admitted:
            print(item.label, item.confidence, item.id)

Every call to :meth:`Assay.score` and :meth:`Assay.ask` writes exactly one audit event.
:meth:`Assay.ask` answers (or abstains, clarifies, refuses); :meth:`Assay.assess`
stops after routing, for callers who write their own answers.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from assay.access import EVERYTHING, Access, parse_labels
from assay.audit import AuditLog
from assay.audit.log import MAX_LIST
from assay.audit.seal import AuditKey
from assay.audit.verify import RowCheck
from assay.calibration.apply import Calibrator, evidence_key, set_key
from assay.calibration.store import CalibrationStore
from assay.errors import InvalidInputError, NotFoundError, UnknownSourceError, did_you_mean
from assay.events import AskRecord, ScoreRecord
from assay.flow.score import ScoreResult, score_candidates, score_record
from assay.models.encoding_settings import MIB, configure_encodings
from assay.monitor.tighten import effective_policy
from assay.policy import Policy, PolicyBook, check_floor
from assay.scoring.corroboration import TextSimilarity, lexical_similarity
from assay.scoring.evidence import SourceFacts
from assay.settings import Settings, database_target, load_settings, with_names
from assay.sources import SourceRegistry, successors
from assay.store import Database, VectorIndexOptions, open_database
from assay.types import Candidate, check_texts, parse_date

# The question path (retrieval, models, answerer, judge) and ingestion are imported where
# they are first used: `assay score` and a scoring service never load them.
if TYPE_CHECKING:
    from assay.answer.base import Answerer
    from assay.answer.correctness import CorrectnessModel, CorrectnessRater
    from assay.flow.assess import AskResult
    from assay.flow.respond import Response
    from assay.ingest.pipeline import FileOutcome, IngestOptions, IngestReport
    from assay.judge.base import Judge
    from assay.keys import KeyStore
    from assay.models.answerability import LLMAnswerability
    from assay.models.embedder import Embedder
    from assay.models.reader import Reader
    from assay.models.relevance import RelevanceModel
    from assay.models.support import SupportModel
    from assay.monitor import Monitor
    from assay.review import ReviewQueue
    from assay.store.base import Store, StoredDocument

_S = TypeVar("_S")


@dataclass(slots=True)
class _LoadedModels:
    """The models an engine loaded on first use, shared by its forks (they are safe to
    call from several threads)."""

    embedder: Embedder | None = None
    relevance: RelevanceModel | None = None
    cascade: RelevanceModel | None = None
    support: SupportModel | None = None
    correctness: dict[Path, CorrectnessModel] = field(default_factory=dict)
    answerability: LLMAnswerability | None = None
    reader: Reader | None = None
    answerer: Answerer | None = None
    judge: Judge | None = None


def _checked_paths(paths: object) -> list[Path]:
    """``paths`` as a list of paths: one string or path alone is one file or folder (a
    string was read as its characters, and its first "/" as the whole file system)."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    fix = "give a list of file or folder paths (strings or pathlib.Path)"
    if isinstance(paths, bytes) or not isinstance(paths, Iterable):
        raise InvalidInputError("paths", paths, fix)
    checked = []
    for path in paths:
        if not isinstance(path, str | os.PathLike) or not str(path).strip():
            raise InvalidInputError("paths", path, fix, problem="is not a path")
        checked.append(Path(path))
    return checked


def _checked_day(as_of: object) -> date:
    """The day ``as_of`` names: a date, a datetime's UTC date or an ISO date string, as
    the source registry reads dates (today in UTC for ``None``). A string failed deep
    inside scoring, compared with a source's review date."""
    return parse_date("as_of", as_of) or datetime.now(UTC).date()


class Assay:
    """One assay database with its source registry, policies and audit log."""

    def __init__(
        self,
        db: str | Path | None = None,
        *,
        settings: Settings | None = None,
        create: bool = True,
        calibrate: bool = True,
        actor: str | None = None,
        database: Database | None = None,
        embedder: Embedder | str | None = None,
        relevance: RelevanceModel | str | None = None,
        support: SupportModel | str | None = None,
        answerer: Answerer | str | None = None,
        judge: Judge | str | None = None,
    ) -> None:
        """Open the database (``create=False``: it must already exist).

        ``calibrate=False`` leaves every score raw, ignoring stored calibration maps (for
        measuring the raw scores that a map is fitted on). ``actor`` (an API key id) is
        written into every audit event this instance appends (``audit.actor``).

        Each model and the judge may be given by name (as in the settings: ``"minilm"``,
        ``"assay-relevance"``, ``"none"``, ``"llm"``, ...) or as an instance of its
        protocol (:class:`~assay.models.embedder.Embedder`, ``RelevanceModel``,
        ``SupportModel``, ``Answerer``, ``Judge``); ``database`` is an already open
        :class:`~assay.store.repositories.Database` (another backend), used instead of
        opening ``settings.db``. Unset, each comes from the settings.
        """
        if settings is None:
            settings = load_settings(db=db)
        elif db is not None:
            settings = settings.model_copy(update={"db": database_target(db)})
        named = {
            "embedder": embedder, "relevance_model": relevance, "support_model": support,
            "answerer": answerer, "judge": judge,
        }  # fmt: skip
        self.settings = with_names(settings, {k: v for k, v in named.items() if isinstance(v, str)})
        #: the mildest severity this engine may ask under (an API key's floor, set by
        #: :meth:`acting_as`); ``None``: any
        self.severity_floor: str | None = None
        #: what this engine may read (:mod:`assay.access`): every document for the owner
        #: of the database; an API key's grants once :meth:`acting_as` it
        self.access: Access = EVERYTHING
        self.policies = PolicyBook.load(
            self.settings.policy_dirs, severity_policies=self.settings.severity_policies
        )
        key_file = self.settings.audit_key_file
        key = AuditKey.load(key_file) if key_file else None  # before opening: nothing to close
        retired = [
            AuditKey.load(path, setting="audit_retired_key_files", retired=True)
            for path in self.settings.audit_retired_key_files
        ]
        self._opened = database is None  # a database given is the caller's to close
        self._forkable = database is None  # a database given is one connection
        self.db = database or open_database(
            self.settings.db, create=create, index=vector_index(self.settings),
            pool_size=self.settings.pg_pool_size,
        )  # fmt: skip
        if self._opened:  # a database given from outside has no file to put a cache beside
            configure_encodings(
                int(self.settings.encoding_cache_mb * MIB),
                self.settings.encoding_store_file,
                int(self.settings.encoding_store_mb * MIB),
            )
        self.sources = SourceRegistry(self.db)
        self.calibration = CalibrationStore(self.db)
        self.calibrator = Calibrator(self.calibration) if calibrate else None
        self._record_with(
            AuditLog(self.db, actor=actor, key=key, retired_keys=retired, replay=_replay)
        )
        self._models = _LoadedModels(
            embedder=None if isinstance(embedder, str) else embedder,
            relevance=None if isinstance(relevance, str) else relevance,
            support=None if isinstance(support, str) else support,
            answerer=None if isinstance(answerer, str) else answerer,
            judge=None if isinstance(judge, str) else judge,
        )

    @property
    def store(self) -> Store:
        """The knowledge base (opened on first use: ``score`` never reads it)."""
        return self.db.knowledge

    def documents(
        self, *, source_id: str | None = None, limit: int | None = None
    ) -> list[StoredDocument]:
        """What the knowledge base holds, document by document (by uri): each with the
        source it was ingested under, its dates and its chunk count."""
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST
        ):
            raise InvalidInputError(
                "limit", limit, f"give a number of documents from 1 to {MAX_LIST}"
            )
        if source_id is not None:  # an unknown source is an error, not an empty list
            known = [s.id for s in self.sources.list()]
            if source_id not in known:
                raise InvalidInputError(
                    "source_id", source_id,
                    f"{did_you_mean(source_id, known)}give one that `assay sources list` shows",
                    problem="is not a registered source",
                )  # fmt: skip
        if self.access.everything:
            return self.store.list_documents(source_id=source_id, limit=limit)
        found = self.store.list_documents(source_id=source_id, limit=None)
        return [d for d in found if self.access.may_read(d.access)][:limit]

    def document(self, document_id: str) -> StoredDocument:
        """One stored document by its id (as ``documents`` lists it)."""
        if not isinstance(document_id, str) or not document_id.strip():
            raise InvalidInputError("document_id", document_id, "give an id from `documents`")
        found = self.store.document(document_id.strip())
        if found is None or not self.access.may_read(found.access):  # the same answer
            raise NotFoundError(
                f"no document {document_id!r}; list them with `assay documents list`"
            )
        return found

    def relabel(
        self, document_id: str, labels: Iterable[str], *, note: str | None = None
    ) -> StoredDocument:
        """Give a stored document (and its chunks) these access labels (none: readable by
        every key), replacing its labels; the change and the labels before it land in
        the audit log in the same transaction. Returns the document as it now is."""
        new = parse_labels(labels)
        if self.settings.access_labels_required and not new:
            raise InvalidInputError(
                "access", "", "give at least one label: the settings require labels "
                "(access_labels_required)", problem="is empty",
            )  # fmt: skip
        check_texts(note=note)
        with self.db.unit_of_work():  # the labels and their audit event land together
            before = self.document(document_id)
            if not self.store.relabel(before.id, new):
                raise NotFoundError(f"no document {document_id!r}")
            after = replace(before, access=tuple(sorted(new)))
            self._record_relabel(before, after, note=note)
        return after

    def _record_relabel(
        self, before: StoredDocument, after: StoredDocument, *, note: str | None = None
    ) -> None:
        """The audit event of a document's access labels changing (by relabelling, or
        by ingesting its file with other labels)."""
        from assay.events import DocumentAccessRecord

        record = DocumentAccessRecord(
            document={"id": before.id, "uri": before.uri, "source_id": before.source_id},
            before=list(before.access), after=list(after.access), note=note,
        )  # fmt: skip
        self.audit.append(record, query="", policy_name="", policy_version="")

    @property
    def embedder(self) -> Embedder:
        """The embedder of the knowledge base (from settings; loaded on first use)."""
        if self._models.embedder is None:
            from assay.models.embedder import get_embedder

            self._models.embedder = get_embedder(self.settings.embedder)
        return self._models.embedder

    @property
    def relevance(self) -> RelevanceModel | None:
        """The relevance model that scores retrieved chunks; ``None`` if set to ``none``."""
        if self._models.relevance is None and self.settings.relevance_model.lower() != "none":
            from assay.models.relevance import get_relevance_model

            self._models.relevance = get_relevance_model(
                self.settings.relevance_model, llm=self.settings.llm
            )
        return self._models.relevance

    def relevance_for(self, policy: Policy) -> RelevanceModel | None:
        """The relevance model for a request under ``policy``: the LLM cascade where the
        policy asks for it (``[models] llm_cascade``), the model is the default and an
        endpoint is configured; otherwise :attr:`relevance`."""
        from assay.models.relevance import (
            DEFAULT_RELEVANCE_MODEL,
            CascadeRelevanceModel,
            LLMRelevanceModel,
        )

        base = self.relevance
        if (
            base is None
            or not policy.models.llm_cascade
            or self.settings.relevance_model.lower() != DEFAULT_RELEVANCE_MODEL
        ):
            return base
        if self._models.cascade is None:
            from assay.models.llm import client_for

            client = client_for(self.settings.llm)
            if client is None:
                return base
            self._models.cascade = CascadeRelevanceModel(base, LLMRelevanceModel(client))
        return self._models.cascade

    @property
    def support(self) -> SupportModel | None:
        """The support model behind corroboration; ``None`` if set to ``none``."""
        if self._models.support is None and self.settings.support_model.lower() != "none":
            from assay.models.support import get_support_model

            self._models.support = get_support_model(
                self.settings.support_model,
                llm=self.settings.llm,
                labels=self.settings.support_labels,
            )
        return self._models.support

    def correctness_for(self, policy: Policy) -> CorrectnessRater | None:
        """Rates whether an answer is right (setting ``correctness_model``).

        The default is ``assay-correctness-llm`` when a chat endpoint is configured whose
        model it was fitted with (it asks that model about the cited passage), else
        ``assay-correctness``. ``None`` when set to ``none``, or when the relevance model
        that ``policy`` gets is not the one the model was fitted with (its features would
        mean something else)."""
        from assay.answer.correctness import (
            DEFAULT_CORRECTNESS_MODEL,
            SHIPPED_CORRECTNESS,
            SHIPPED_CORRECTNESS_LLM,
            CorrectnessRater,
            load_correctness_model,
        )

        spec = self.settings.correctness_model
        relevance, reader = self.relevance_for(policy), self.reader
        if spec.lower() == "none" or relevance is None or reader is None:
            return None
        if spec == DEFAULT_CORRECTNESS_MODEL:
            with_llm = [SHIPPED_CORRECTNESS_LLM] if self._answerability() is not None else []
            paths = [*with_llm, SHIPPED_CORRECTNESS]
        else:
            paths = [Path(spec)]
        for path in paths:
            if path not in self._models.correctness:
                self._models.correctness[path] = load_correctness_model(path)
            model = self._models.correctness[path]
            answerability = self._answerability() if model.answerability else None
            asked = answerability.name if answerability is not None else None
            if model.applies_to(relevance.name, reader.name, asked):
                return CorrectnessRater(model, relevance, reader, answerability)
        return None

    def _answerability(self) -> LLMAnswerability | None:
        """The configured chat endpoint asked whether a passage states the answer;
        ``None`` without an endpoint."""
        if self._models.answerability is None:
            from assay.models.answerability import LLMAnswerability
            from assay.models.llm import client_for

            client = client_for(self.settings.llm)
            if client is not None:
                self._models.answerability = LLMAnswerability(client)
        return self._models.answerability

    @property
    def reader(self) -> Reader | None:
        """Finds the span of a passage that answers (setting ``reader_model``); ``None``
        when set to ``none``."""
        spec = self.settings.reader_model
        if self._models.reader is None and spec.lower() != "none":
            from assay.models.reader import DEFAULT_READER_MODEL, SHIPPED_READER, load_reader

            self._models.reader = load_reader(
                SHIPPED_READER if spec == DEFAULT_READER_MODEL else Path(spec)
            )
        return self._models.reader

    @property
    def answerer(self) -> Answerer:
        """Writes answers: cited extracts offline, or the configured LLM (settings)."""
        if self._models.answerer is None:
            if self.settings.answerer == "llm":
                from assay.answer.llm import LLMAnswerer
                from assay.models.llm import required_client

                self._models.answerer = LLMAnswerer(required_client("answerer", self.settings.llm))
            else:
                from assay.answer.extractive import ExtractiveAnswerer

                self._models.answerer = ExtractiveAnswerer(self.relevance, reader=self.reader)
        return self._models.answerer

    @property
    def judge(self) -> Judge:
        """Rates every answer against its evidence (settings: ``assay-judge`` or ``llm``)."""
        if self._models.judge is None:
            from assay.judge.evaluate import get_judge
            from assay.models.support import DEFAULT_SUPPORT_MODEL

            support = self.support or DEFAULT_SUPPORT_MODEL
            self._models.judge = get_judge(self.settings.judge, support, llm=self.settings.llm)
        return self._models.judge

    def fork(self) -> Assay:
        """Another instance on the same database with its own connection (one per
        thread: a connection must not be shared), sharing this one's policies and
        loaded models, which are safe to call from several threads, and acting for the
        same key (:meth:`acting_as`: actor, severity floor, grants). An engine built on a
        ``database`` instance cannot fork: the instance is one connection."""
        if not self._forkable:
            raise InvalidInputError(
                "database", type(self.db).__name__,
                "build each thread's engine with its own database instance",
                problem="was given, so this engine cannot open another connection to it",
            )  # fmt: skip
        other = Assay(settings=self.settings, create=False, calibrate=self.calibrator is not None)
        other.policies = self.policies
        other._models = self._models  # loaded once, for every fork
        other.audit.share_state_of(self.audit)  # every thread checks the rows any wrote
        if self.audit.actor is not None:
            other._record_with(other.audit.as_actor(self.audit.actor))
        other.severity_floor, other.access = self.severity_floor, self.access
        return other

    def acting_as(
        self,
        actor: str | None,
        *,
        severity_floor: str | None = None,
        access: Access | None = None,
    ) -> Assay:
        """This engine acting for ``actor`` (an API key id): the same database connection
        and models, with every audit event it appends, and every review verdict and key
        change it records, written as ``actor``; with the key's ``severity_floor``, it asks
        under no milder policy (:func:`assay.policy.check_floor`); with its ``access``, it
        searches and lists only what the key may read. Cheap: one per request."""
        other = copy.copy(self)
        other.severity_floor = severity_floor
        other.access = self.access if access is None else self.access.within(access)
        other._opened = False  # closing a request's engine leaves the thread's connection open
        other._record_with(self.audit.as_actor(actor))
        return other

    def record_read(self, what: str, filters: Mapping[str, object], returned: int) -> None:
        """Audit a read of the audit log or the review queue by the key this engine acts
        for (:meth:`acting_as`): they hold every document's text, whatever the key's
        grants, so an auditor's reads are on the record too. Nothing without a key (the
        database's owner at the command line holds the file itself)."""
        from assay.events import ReadRecord

        if self.audit.actor is None:
            return
        shown = {k: v for k, v in filters.items() if v is not None}
        record = ReadRecord(what=what, filters=shown, returned=returned)
        self.audit.append(record, query="", policy_name="", policy_version="")

    def acting_as_key(self, key_id: str) -> Assay:
        """This engine acting for the stored API key ``key_id`` (active): its id in the
        audit rows, its severity floor and its grants, as the HTTP service acts for it."""
        key = self.keys.get(key_id)
        if not key.active:
            raise InvalidInputError(
                "key_id", key_id, "use an active key (`assay keys list`)", problem="is revoked"
            )
        return self.acting_as(key.id, severity_floor=key.min_severity, access=key.access)

    def _record_with(self, audit: AuditLog) -> None:
        """Use ``audit`` for this engine's events, and the services that audit what they
        do (review verdicts, key changes, drift alerts) with it."""
        self.audit = audit
        self._services: dict[str, Any] = {}

    @property
    def review(self) -> ReviewQueue:
        """The queue of answers held for human review (built on first use)."""
        from assay.review import ReviewQueue

        return self._service("review", lambda: ReviewQueue(self.db, self.audit))

    @property
    def keys(self) -> KeyStore:
        """The API keys of the HTTP service (built on first use)."""
        from assay.keys import KeyStore

        return self._service("keys", lambda: KeyStore(self.db, self.audit))

    @property
    def monitor(self) -> Monitor:
        """Drift checks over the audit log (built on first use)."""
        from assay.monitor import Monitor

        return self._service(
            "monitor", lambda: Monitor(self.db, self.audit, self.settings, self.policies)
        )

    def _service(self, name: str, build: Callable[[], _S]) -> _S:
        """The service ``name`` of this engine's audit log, built once."""
        if name not in self._services:
            self._services[name] = build()
        service: _S = self._services[name]
        return service

    def close(self) -> None:
        """Close the database connection (one this engine opened)."""
        if self._opened:
            self.db.close()

    def __enter__(self) -> Assay:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def resolve_source(
        self, candidate: Candidate, as_of: date, *, links: Mapping[str, str] | None = None
    ) -> SourceFacts:
        """What the registry says about a candidate's source on ``as_of`` (E3).

        ``links`` are the registry's supersession links (:meth:`SourceRegistry.supersessions`),
        read here when not given.
        """
        if candidate.source_id is not None:
            try:
                source = self.sources.get(candidate.source_id)
            except UnknownSourceError:
                raise UnknownSourceError(
                    candidate.source_id,
                    field=f"candidate {candidate.id!r}: source_id",
                    or_kind=True,
                ) from None
            if candidate.source_kind is not None and candidate.source_kind != source.kind:
                raise InvalidInputError(
                    f"candidate {candidate.id!r}: source_kind",
                    candidate.source_kind,
                    f"drop it or use {source.kind!r}, the kind registered for {source.id!r}",
                    problem="disagrees with the registry",
                )
            return SourceFacts(
                kind=source.kind,
                reliability=source.reliability,
                source_id=source.id,
                owner=source.owner,
                jurisdiction=source.jurisdiction,
                overruled=source.overruled,
                retired=source.retired,
                review_overdue=source.review_overdue(as_of),
                superseded_by=successors(
                    source.id, self.sources.supersessions() if links is None else links
                ),
            )
        try:
            kind = self.sources.kind(candidate.source_kind or "")
        except InvalidInputError as exc:
            raise exc.at(f"candidate {candidate.id!r}") from None
        return SourceFacts(kind=kind.name, reliability=kind.reliability)

    def _source_resolver(self, as_of: date) -> Callable[[Candidate], SourceFacts]:
        """:meth:`resolve_source` for one request: each source is read from the registry
        once, however many of the request's candidates cite it (a round trip each on a
        database server), and the supersession links once, when a registered source
        needs them."""
        resolved: dict[tuple[str | None, str | None], SourceFacts] = {}
        links: list[dict[str, str]] = []

        def resolve(candidate: Candidate) -> SourceFacts:
            key = (candidate.source_id, candidate.source_kind)
            if key not in resolved:
                if candidate.source_id is not None and not links:
                    links.append(self.sources.supersessions())
                resolved[key] = self.resolve_source(
                    candidate, as_of, links=links[0] if links else None
                )
            return resolved[key]

        return resolve

    def ingest(
        self,
        paths: Iterable[str | Path] | str | Path,
        *,
        options: IngestOptions | None = None,
        on_file: Callable[[FileOutcome], None] | None = None,
    ) -> IngestReport:
        """Ingest files and folders into the knowledge base (see :mod:`assay.ingest.pipeline`).

        ``paths`` are files and folders; one path alone (a string or a
        :class:`~pathlib.Path`) is that one file or folder. ``options`` carries the
        default source, dates and chunk budget; each file lands whole or not at all, and a
        bad file fails alone. File size and time limits not set in ``options`` come from
        the settings (``ingest_max_file_mb`` / ``_seconds``).
        """
        from assay.ingest.pipeline import IngestOptions, Relabelled, ingest
        from assay.models.encodings import shared_encodings

        files = _checked_paths(paths)
        options = options or IngestOptions()
        options = replace(
            options,
            max_file_bytes=options.max_file_bytes or int(self.settings.ingest_max_file_mb * 2**20),
            max_file_seconds=options.max_file_seconds or self.settings.ingest_max_file_seconds,
            access_required=options.access_required or self.settings.access_labels_required,
            writer=self.access.within(options.writer),
        )
        return ingest(
            files,
            store=self.store,
            embedder=self.embedder,
            registry=self.sources,
            options=options,
            on_file=on_file,
            encodings=shared_encodings() if self._reads_token_states() else None,
            policies=[self.policies.get(name) for name in self.policies.names()],
            relabelled=Relabelled(self._record_relabel, self.db.unit_of_work),
        )

    def _reads_token_states(self) -> bool:
        """Whether the relevance model reads the embedder's token states (then ingest
        keeps them for it)."""
        relevance = self.relevance
        return getattr(relevance, "encoder_name", None) == self.embedder.name

    def assess(
        self,
        question: str,
        *,
        policy: str | None = None,
        severity: str | None = None,
        top_k: int = 8,
        category: str | None = None,
        as_of: date | str | None = None,
        jurisdiction: str | None = None,
        record: bool = True,
        grants: Iterable[str] | None = None,
    ) -> AskResult:
        """Retrieve evidence for ``question``, score and gate it, and decide what to do.

        Writes one audit event of kind ``ask`` holding the evidence, the set signals
        and the routing decision with its reasons; writes no answer. ``record=False``
        writes nothing: for offline evaluation (calibration), never for serving.
        ``grants``: search only what these access labels may read (within what this
        engine may read; :mod:`assay.access`).
        """
        chosen, day = self._policy(policy, severity), _checked_day(as_of)
        access = self.access.narrowed(grants)
        result = self._assess(question, chosen, day, top_k, category, jurisdiction, access)
        if not record:
            return result
        event_id = self._record(question, chosen, self._ask_record(result))
        return replace(result, scored=replace(result.scored, event_id=event_id))

    def ask(
        self,
        question: str,
        *,
        policy: str | None = None,
        severity: str | None = None,
        top_k: int = 8,
        category: str | None = None,
        as_of: date | str | None = None,
        jurisdiction: str | None = None,
        record: bool = True,
        grants: Iterable[str] | None = None,
    ) -> Response:
        """Answer ``question`` from the knowledge base, or abstain, clarify or refuse.

        Retrieval, gate and router decide (:meth:`assess`); the answerer writes, the
        citations are checked and the judge rates the answer (:mod:`assay.flow.respond`).
        One audit event of kind ``ask`` holds all of it, and an answer sent to human
        review is queued in the same transaction. ``record=False`` writes nothing and
        queues nothing: for offline evaluation (calibration), never for serving.
        ``grants``: as for :meth:`assess`; broadening searches under them too.
        """
        from assay.answer.extractive import ExtractiveAnswerer
        from assay.flow.respond import Responder

        chosen, day = self._policy(policy, severity), _checked_day(as_of)
        access = self.access.narrowed(grants)
        result = self._assess(question, chosen, day, top_k, category, jurisdiction, access)

        def broaden(phrasings: Sequence[str]) -> AskResult:
            return self._assess(
                question, chosen, day, top_k, category, jurisdiction, access, variants=phrasings
            )

        offline = (
            ExtractiveAnswerer(self.relevance, reader=self.reader)
            if self.settings.answerer == "llm"
            else None
        )
        responder = Responder(
            self.answerer, self.judge, fallback=offline, calibrator=self.calibrator,
            correctness=self.correctness_for(chosen),
        )  # fmt: skip
        response = responder.respond(question, result, broaden=broaden, day=day)
        if not record:
            return response
        draft, judgment = response.draft, response.judgment
        answered = self._ask_record(
            response.result,
            answerer=draft.answerer if draft else None,
            judge=judgment.judge if judgment else None,
            prompts={
                "answer": draft.prompt_version if draft else None,
                "judge": judgment.prompt_version if judgment else None,
            },
        ).answered(response.answer_part())
        with self.db.unit_of_work():  # the event and its review item land together
            event = self.audit.append(
                answered, query=question, policy_name=chosen.name, policy_version=chosen.version
            )
            review_id = None
            if response.review is not None and response.draft is not None:
                review_id = self.review.add(
                    event_id=event.event_id, query=question, answer=response.draft.text,
                    reason=response.review, assessment=response.assessment.to_dict(),
                    policy_name=chosen.name, policy_version=chosen.version,
                ).id  # fmt: skip
        result = replace(
            response.result, scored=replace(response.result.scored, event_id=event.event_id)
        )
        return replace(response, result=result, event_id=event.event_id, review_id=review_id)

    def _assess(
        self,
        question: str,
        chosen: Policy,
        day: date,
        top_k: int,
        category: str | None,
        jurisdiction: str | None,
        access: Access,
        *,
        variants: Sequence[str] = (),
    ) -> AskResult:
        """Retrieval (with ``variants`` when broadening), relevance, scoring and routing."""
        from assay.flow.assess import assess_retrieval
        from assay.flow.retrieval import apply_relevance, search
        from assay.ingest.pipeline import embedding_text

        check_texts(question=question, category=category, jurisdiction=jurisdiction)
        self._require_knowledge_base()
        chosen.routing.bands_for(category)  # an unknown category fails before retrieval
        retrieval = search(
            self.store, self.embedder, question, k=top_k, variants=variants, access=access
        )
        relevance = self.relevance_for(chosen)
        if relevance is not None and retrieval.hits:
            # the title path is scored with the text, as it was embedded: a chunk under
            # "HX-40 > Charging" need not repeat the product name to answer about it
            scores = relevance.score(question, [embedding_text(h.chunk) for h in retrieval.hits])
            retrieval = apply_relevance(retrieval, scores, relevance.name)
        result = assess_retrieval(
            question,
            retrieval,
            chosen,
            self._source_resolver(day),
            as_of=day,
            category=category,
            jurisdiction=jurisdiction,
            support=self.support,
            answerability=self._answerability() if chosen.models.llm_judgment else None,
        )
        return self._calibrated(result, chosen, category)

    def _calibrated(self, result: AskResult, chosen: Policy, category: str | None) -> AskResult:
        """``result`` with the stored set map deciding the route and the evidence map's
        probabilities beside each item (see :mod:`assay.calibration.apply`)."""
        from assay.routing import route_question

        if self.calibrator is None:
            return result
        model = self.relevance_for(chosen)
        relevance = model.name if model else None
        support = self.support.name if self.support else None
        applied: dict[str, Any] = {}
        key = set_key(chosen, self.embedder.name, relevance, support, result.judged_by)
        calibrated = self.calibrator.calibrate("set", key, result.signals.composite)
        if calibrated is not None:
            applied["set"] = calibrated.to_dict()
            signals = replace(result.signals, composite=calibrated.value)
            admitted = len(result.scored.admitted)
            read = result.judged_by is not None
            query = result.scored.query
            decision = route_question(query, signals, admitted, chosen.routing, category, read=read)
            result = replace(result, route=decision)
        key = evidence_key(chosen, self.embedder.name, relevance)
        evidence_map = self.calibrator.lookup("evidence", key)
        if evidence_map is not None:
            values = {
                e.id: round(float(evidence_map.apply(e.confidence)), 6)
                for e in result.scored.evidence
            }
            applied["evidence"] = evidence_map.ref() | {"values": values}
        return replace(result, calibration=applied) if applied else result

    def _ask_record(
        self,
        result: AskResult,
        *,
        answerer: str | None = None,
        judge: str | None = None,
        prompts: dict[str, str | None] | None = None,
    ) -> AskRecord:
        """The question's audit record; an answered one names its writer and judge."""
        from assay.flow.assess import ask_record

        models: dict[str, str | None] = {
            "similarity": f"{self.embedder.name}, {result.retrieval.similarity_from}",
            "corroboration": _name(lexical_similarity)
            if self.support is None
            else f"support_similarity[{self.support.name}]",
        }
        if result.judged_by is not None:  # the set's judgment (R4) read by the chat model
            models["judgment"] = result.judged_by
        if prompts is not None:
            models |= {"answerer": answerer, "judge": judge}
        return ask_record(result, models=models, prompts=prompts)

    def _require_knowledge_base(self) -> None:
        """Refuse to ask an empty knowledge base, or one embedded by another model."""
        bound = self.store.embedder()
        if bound is None:
            raise InvalidInputError(
                "knowledge base",
                self.settings.database_label,  # no path or host: it may go over HTTP
                "ingest documents first: `assay ingest PATH... --source ID`",
                problem="is empty",
            )
        if bound != self.embedder.name:
            raise InvalidInputError(
                "embedder",
                self.embedder.name,
                f"the knowledge base was embedded with {bound!r}: set ASSAY_EMBEDDER to the "
                "embedder that made it (minilm, hashing)",
                problem="does not match the knowledge base",
            )

    def _record(self, query: str, policy: Policy, record: ScoreRecord) -> str:
        """Append one audit event; its id."""
        event = self.audit.append(
            record, query=query, policy_name=policy.name, policy_version=policy.version
        )
        return event.event_id

    def _policy(self, name: str | None, severity: str | None) -> Policy:
        return effective_policy(  # E12: while a tightening drift alert is open, it asks more
            self.db.monitor, self.allowed_policy(name=name, severity=severity)
        )

    def allowed_policy(self, *, name: str | None = None, severity: str | None = None) -> Policy:
        """The policy a request names (or its severity's), else the default one, or the
        severity floor's when one is set; refused when milder than the floor (403)."""
        if name is None and severity is None:
            severity = self.severity_floor
            name = None if severity else self.settings.default_policy
        policy = self.policies.resolve(name=name, severity=severity)
        return check_floor(policy, self.severity_floor, self.audit.actor)

    def score(
        self,
        query: str,
        candidates: Sequence[Candidate],
        *,
        policy: str | None = None,
        severity: str | None = None,
        as_of: date | str | None = None,
        jurisdiction: str | None = None,
        similarity: TextSimilarity = lexical_similarity,
        models: Mapping[str, str] | None = None,
    ) -> ScoreResult:
        """Score, gate and corroborate retrieved candidates, and log the event.

        The policy is picked by name or by severity (neither: the default policy).
        ``as_of`` defaults to today in UTC; it is recorded so the event can be replayed.
        ``similarity`` groups passages into findings. ``models`` names the models and
        versions behind the scores (e.g. ``{"similarity": "my-embedder v3 cosine"}``)
        for the audit row (J8).
        """
        chosen = self._policy(policy, severity)
        day = _checked_day(as_of)
        result = score_candidates(
            query,
            candidates,
            chosen,
            self._source_resolver(day),
            as_of=day,
            jurisdiction=jurisdiction,
            similarity=similarity,
        )
        models = {"similarity": "caller-supplied", "corroboration": _name(similarity)} | dict(
            models or {}
        )
        event_id = self._record(query, chosen, score_record(result, models=models))
        return replace(result, event_id=event_id)


def _replay() -> RowCheck:
    """A fresh replay check for ``audit verify``, its module loaded only when one runs."""
    from assay.audit.replay import Replay

    return Replay()


def _name(fn: object) -> str:
    """A function's importable name, recorded as the version of what it computed."""
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__name__)}"


def vector_index(settings: Settings) -> VectorIndexOptions:
    """The approximate vector index's parameters from the ``pg_*`` settings."""
    return VectorIndexOptions(
        m=settings.pg_hnsw_m,
        ef_construction=settings.pg_hnsw_ef_construction,
        ef_search=settings.pg_ef_search,
    )
