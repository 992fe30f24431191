"""The exported names are the public API: changing them is a deliberate, visible act."""

import assay


def test_public_api_is_pinned() -> None:
    assert sorted(assay.__all__) == [
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
    for name in assay.__all__:
        assert hasattr(assay, name), name


def test_every_error_derives_from_assay_error() -> None:
    for name in assay.__all__:
        obj = getattr(assay, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, assay.AssayError), name
