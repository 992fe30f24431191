"""assay: confidence-governed retrieval for RAG.

Every retrieved item gets a structured confidence (similarity, source reliability,
freshness) and a high/medium/low label; a policy's thresholds keep weak evidence
out of the context; corroboration tells agreeing independent sources from isolated
ones; set-level signals and a router decide whether to answer at all; and every
retrieval event lands in a hash-chained audit log.

The extension points are protocols exported here: a user's embedder, relevance or
support model, answerer or judge, and a storage backend (:class:`Database` and its
repositories) plug in without touching the rest.
"""

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
from assay.scoring.evidence import SourceFacts, composite_score, freshness_score, score_candidate
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
from assay.version import __version__

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
