"""Monitoring of the audit log (R10), drift alerts (J9) and automatic tightening (E12).

=====================  ========================================================
module                 what it holds
=====================  ========================================================
``stats``              distributions, mixes, Welch's and the two-proportion test
``events``             one compact row per ``ask``/``score`` event, read by SQL
``report``             rolling statistics of a window
``timeline``           events per hour (or day) of a window, for a chart
``drift``              per-policy drift verdicts, baseline against current
``alerts``             the rows of the ``monitor_alerts`` table
``checker``            :func:`check`: opens and closes alerts, audited
``tighten``            tightened policies while alerts are open
``service``            :class:`Monitor`, the entry point bound to one database
=====================  ========================================================
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.monitor.alerts import Alert, get_alert, list_alerts
    from assay.monitor.checker import CheckResult, check
    from assay.monitor.drift import Drift, DriftRules, compare_means, compare_rates, evaluate_policy
    from assay.monitor.report import (
        BandFeedback,
        MonitorReport,
        SourceStats,
        WindowStats,
        build_report,
    )
    from assay.monitor.service import Monitor
    from assay.monitor.stats import Distribution, Mix, TestResult
    from assay.monitor.tighten import effective_policy, thresholds_of, tightened
    from assay.monitor.timeline import Timeline, TimelineBucket, build_timeline

# names import their module on first use (PEP 562): `assay score` reads a tightened
# policy through `tighten` without loading the reports, drift tests and checker
_HOMES = {
    "Alert": "assay.monitor.alerts",
    "BandFeedback": "assay.monitor.report",
    "CheckResult": "assay.monitor.checker",
    "Distribution": "assay.monitor.stats",
    "Drift": "assay.monitor.drift",
    "DriftRules": "assay.monitor.drift",
    "Mix": "assay.monitor.stats",
    "Monitor": "assay.monitor.service",
    "MonitorReport": "assay.monitor.report",
    "SourceStats": "assay.monitor.report",
    "TestResult": "assay.monitor.stats",
    "Timeline": "assay.monitor.timeline",
    "TimelineBucket": "assay.monitor.timeline",
    "WindowStats": "assay.monitor.report",
    "build_report": "assay.monitor.report",
    "build_timeline": "assay.monitor.timeline",
    "check": "assay.monitor.checker",
    "compare_means": "assay.monitor.drift",
    "compare_rates": "assay.monitor.drift",
    "effective_policy": "assay.monitor.tighten",
    "evaluate_policy": "assay.monitor.drift",
    "get_alert": "assay.monitor.alerts",
    "list_alerts": "assay.monitor.alerts",
    "thresholds_of": "assay.monitor.tighten",
    "tightened": "assay.monitor.tighten",
}

__all__ = [
    "Alert",
    "BandFeedback",
    "CheckResult",
    "Distribution",
    "Drift",
    "DriftRules",
    "Mix",
    "Monitor",
    "MonitorReport",
    "SourceStats",
    "TestResult",
    "Timeline",
    "TimelineBucket",
    "WindowStats",
    "build_report",
    "build_timeline",
    "check",
    "compare_means",
    "compare_rates",
    "effective_policy",
    "evaluate_policy",
    "get_alert",
    "list_alerts",
    "thresholds_of",
    "tightened",
]


def __getattr__(name: str) -> Any:
    """Import the module behind a public name the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'assay.monitor' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
