"""assay: confidence-governed retrieval for RAG.

Every retrieved item gets a structured confidence (similarity, source reliability,
freshness) and a high/medium/low label; a policy's thresholds keep weak evidence
out of the context; corroboration tells agreeing independent sources from isolated
ones; set-level signals and a router decide whether to answer at all; and every
retrieval event lands in a hash-chained audit log.

The extension points are protocols exported here: a user's embedder, relevance or
support model, answerer or judge, and a storage backend (:class:`Database` and its
repositories) plug in without touching the rest.

Names are imported on first use (PEP 562), so that ``import assay`` and the command
line start fast: a command that only scores candidates never loads the models, the
answerer or the HTTP service.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from assay.version import __version__

if TYPE_CHECKING:
    from assay.adapters import to_candidates
    from assay.answer.base import Answerer
    from assay.audit import AuditEvent, AuditLog, VerifyReport
    from assay.engine import Assay
    from assay.errors import (
        AssayError,
        ConflictError,
        EndpointError,
        InvalidInputError,
        ModelUnavailableError,
        NotFoundError,
        PolicyError,
        StorageError,
        UnknownPolicyError,
        UnknownSourceError,
    )
    from assay.flow.assess import AskResult
    from assay.flow.respond import Response
    from assay.flow.score import ScoreResult, score_candidates
    from assay.ingest.pipeline import IngestOptions, IngestReport
    from assay.judge.base import Judge, Judgment
    from assay.models.embedder import Embedder
    from assay.models.relevance import RelevanceModel
    from assay.models.support import SupportModel, SupportResult
    from assay.policy import Policy, PolicyBook, Severity, load_policy_file
    from assay.routing import Decision
    from assay.scoring.corroboration import corroborate, lexical_similarity
    from assay.scoring.evidence import (
        SourceFacts,
        composite_score,
        freshness_score,
        score_candidate,
    )
    from assay.scoring.gate import gate
    from assay.settings import LLMSettings, Settings, load_settings
    from assay.sources import Source, SourceKind, SourceRegistry
    from assay.store import open_database
    from assay.store.base import Store
    from assay.store.repositories import (
        AuditRepository,
        CalibrationRepository,
        Database,
        KeyRepository,
        MonitorRepository,
        ReviewRepository,
        SourceRepository,
    )
    from assay.types import (
        Candidate,
        Evidence,
        ExclusionReason,
        Finding,
        FindingStatus,
        Label,
        SubScores,
        Weights,
    )

#: each public name and the module that defines it
_HOMES = {
    "Answerer": "assay.answer.base",
    "AskResult": "assay.flow.assess",
    "Assay": "assay.engine",
    "AssayError": "assay.errors",
    "AuditEvent": "assay.audit",
    "AuditLog": "assay.audit",
    "AuditRepository": "assay.store.repositories",
    "CalibrationRepository": "assay.store.repositories",
    "Candidate": "assay.types",
    "ConflictError": "assay.errors",
    "Database": "assay.store.repositories",
    "Decision": "assay.routing",
    "Embedder": "assay.models.embedder",
    "EndpointError": "assay.errors",
    "Evidence": "assay.types",
    "ExclusionReason": "assay.types",
    "Finding": "assay.types",
    "FindingStatus": "assay.types",
    "IngestOptions": "assay.ingest.pipeline",
    "IngestReport": "assay.ingest.pipeline",
    "InvalidInputError": "assay.errors",
    "Judge": "assay.judge.base",
    "Judgment": "assay.judge.base",
    "KeyRepository": "assay.store.repositories",
    "LLMSettings": "assay.settings",
    "Label": "assay.types",
    "ModelUnavailableError": "assay.errors",
    "MonitorRepository": "assay.store.repositories",
    "NotFoundError": "assay.errors",
    "Policy": "assay.policy",
    "PolicyBook": "assay.policy",
    "PolicyError": "assay.errors",
    "RelevanceModel": "assay.models.relevance",
    "Response": "assay.flow.respond",
    "ReviewRepository": "assay.store.repositories",
    "ScoreResult": "assay.flow.score",
    "Settings": "assay.settings",
    "Severity": "assay.policy",
    "Source": "assay.sources",
    "SourceFacts": "assay.scoring.evidence",
    "SourceKind": "assay.sources",
    "SourceRegistry": "assay.sources",
    "SourceRepository": "assay.store.repositories",
    "StorageError": "assay.errors",
    "Store": "assay.store.base",
    "SubScores": "assay.types",
    "SupportModel": "assay.models.support",
    "SupportResult": "assay.models.support",
    "UnknownPolicyError": "assay.errors",
    "UnknownSourceError": "assay.errors",
    "VerifyReport": "assay.audit",
    "Weights": "assay.types",
    "composite_score": "assay.scoring.evidence",
    "corroborate": "assay.scoring.corroboration",
    "freshness_score": "assay.scoring.evidence",
    "gate": "assay.scoring.gate",
    "lexical_similarity": "assay.scoring.corroboration",
    "load_policy_file": "assay.policy",
    "load_settings": "assay.settings",
    "open_database": "assay.store",
    "score_candidate": "assay.scoring.evidence",
    "score_candidates": "assay.flow.score",
    "to_candidates": "assay.adapters",
}

__all__ = [
    "Answerer",
    "AskResult",
    "Assay",
    "AssayError",
    "AuditEvent",
    "AuditLog",
    "AuditRepository",
    "CalibrationRepository",
    "Candidate",
    "ConflictError",
    "Database",
    "Decision",
    "Embedder",
    "EndpointError",
    "Evidence",
    "ExclusionReason",
    "Finding",
    "FindingStatus",
    "IngestOptions",
    "IngestReport",
    "InvalidInputError",
    "Judge",
    "Judgment",
    "KeyRepository",
    "LLMSettings",
    "Label",
    "ModelUnavailableError",
    "MonitorRepository",
    "NotFoundError",
    "Policy",
    "PolicyBook",
    "PolicyError",
    "RelevanceModel",
    "Response",
    "ReviewRepository",
    "ScoreResult",
    "Settings",
    "Severity",
    "Source",
    "SourceFacts",
    "SourceKind",
    "SourceRegistry",
    "SourceRepository",
    "StorageError",
    "Store",
    "SubScores",
    "SupportModel",
    "SupportResult",
    "UnknownPolicyError",
    "UnknownSourceError",
    "VerifyReport",
    "Weights",
    "__version__",
    "composite_score",
    "corroborate",
    "freshness_score",
    "gate",
    "lexical_similarity",
    "load_policy_file",
    "load_settings",
    "open_database",
    "score_candidate",
    "score_candidates",
    "to_candidates",
]


def __getattr__(name: str) -> Any:
    """Import the module behind a public name the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next lookup does not come here
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
