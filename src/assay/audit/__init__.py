"""The tamper-evident audit log of retrieval events (E8, J8, B2)."""

from assay.audit.log import AuditEvent, AuditLog
from assay.audit.report import GENESIS_HASH, VerifyReport

__all__ = ["GENESIS_HASH", "AuditEvent", "AuditLog", "VerifyReport"]
