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

from assay.monitor.alerts import Alert, get_alert, list_alerts
from assay.monitor.checker import CheckResult, check
from assay.monitor.drift import Drift, DriftRules, compare_means, compare_rates, evaluate_policy
from assay.monitor.report import BandFeedback, MonitorReport, SourceStats, WindowStats, build_report
from assay.monitor.service import Monitor
from assay.monitor.stats import Distribution, Mix, TestResult
from assay.monitor.tighten import effective_policy, thresholds_of, tightened
from assay.monitor.timeline import Timeline, TimelineBucket, build_timeline

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
