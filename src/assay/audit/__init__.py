"""The tamper-evident audit log of retrieval events (E8, J8, B2)."""

from assay.audit.log import GENESIS_HASH, AuditEvent, AuditLog, VerifyReport

__all__ = ["GENESIS_HASH", "AuditEvent", "AuditLog", "VerifyReport"]
