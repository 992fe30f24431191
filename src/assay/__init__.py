"""assay: confidence-governed retrieval for RAG.

Every retrieved item gets a structured confidence (similarity, source reliability,
freshness) and a high/medium/low label; a policy's thresholds keep weak evidence
out of the context; corroboration tells agreeing independent sources from isolated
ones; set-level signals and a router decide whether to answer at all; and every
retrieval event lands in a hash-chained audit log.
"""

from assay.adapters import to_candidates
from assay.ask import AskResult
from assay.audit import AuditEvent, AuditLog, VerifyReport
from assay.engine import Assay
from assay.errors import (
    AssayError,
    ConflictError,
    InvalidInputError,
    ModelUnavailableError,
    NotFoundError,
    PolicyError,
    StorageError,
    UnknownPolicyError,
    UnknownSourceError,
)
from assay.ingest.pipeline import IngestOptions, IngestReport
from assay.pipeline import ScoreResult, score_candidates
from assay.policy import Policy, PolicyBook, Severity, load_policy_file
from assay.routing import Decision
from assay.scoring.corroboration import corroborate, lexical_similarity
from assay.scoring.evidence import SourceFacts, composite_score, freshness_score, score_candidate
from assay.scoring.gate import gate
from assay.settings import Settings, load_settings
from assay.sources import Source, SourceKind, SourceRegistry
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
    "AskResult",
    "Assay",
    "AssayError",
    "AuditEvent",
    "AuditLog",
    "Candidate",
    "ConflictError",
    "Decision",
    "Evidence",
    "ExclusionReason",
    "Finding",
    "FindingStatus",
    "IngestOptions",
    "IngestReport",
    "InvalidInputError",
    "Label",
    "ModelUnavailableError",
    "NotFoundError",
    "Policy",
    "PolicyBook",
    "PolicyError",
    "ScoreResult",
    "Settings",
    "Severity",
    "Source",
    "SourceFacts",
    "SourceKind",
    "SourceRegistry",
    "StorageError",
    "SubScores",
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
    "score_candidate",
    "score_candidates",
    "to_candidates",
]
