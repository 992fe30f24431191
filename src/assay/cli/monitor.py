"""``assay monitor``: rolling statistics, drift alerts and tightening (R10, J9, E12).

``report`` summarises a window of the audit log; ``check`` compares each policy's
recent events with its baseline and opens or closes drift alerts (tightening the
policy while one is open when ``ASSAY_AUTO_TIGHTEN`` is set); ``alerts`` lists them.
"""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.common import db_option, emit_json, json_option, table
from assay.engine import Assay
from assay.monitor import Alert, CheckResult, Distribution, Mix, MonitorReport, WindowStats

_TIMELINE_ROWS = 48  # the text report's timeline: two days of hours; --json has them all


@click.group()
def monitor() -> None:
    """Watch score distributions and decisions over time; alert on drift."""


@monitor.command("report")
@click.option("--policy", help="Only events under this policy.")
@click.option(
    "--window",
    type=int,
    help="The last N events [default: 1000; with --since: every event since then].",
)
@click.option("--since", help="Only events at or after this ISO time.")
@db_option
@json_option
def report(
    policy: str | None, window: int | None, since: str | None, db: Path | None, as_json: bool
) -> None:
    """Score distributions, decision mixes and review accuracy of recent events."""
    with Assay(db, create=False) as engine:
        result = engine.monitor.report(policy=policy, window=window, since=since)
    if as_json:
        emit_json(result.to_dict())
        return
    _print_report(result)


@monitor.command("check")
@click.option("--window", type=int, help="Events in the current window [default: setting].")
@click.option("--baseline", type=int, help="Events in the baseline [default: setting].")
@db_option
@json_option
def check_command(window: int | None, baseline: int | None, db: Path | None, as_json: bool) -> None:
    """Compare each policy's recent events with its baseline; open or close alerts."""
    with Assay(db, create=False) as engine:
        result = engine.monitor.check(window=window, baseline=baseline)
    if as_json:
        emit_json(result.to_dict())
        return
    _print_check(result)


@monitor.command("alerts")
@click.option("--all", "include_closed", is_flag=True, help="Closed alerts too, not only open.")
@click.option("--policy", help="Only alerts of this policy.")
@db_option
@json_option
def alerts(include_closed: bool, policy: str | None, db: Path | None, as_json: bool) -> None:
    """List drift alerts, newest first (open ones only unless --all)."""
    with Assay(db, create=False) as engine:
        found = engine.monitor.alerts(include_closed=include_closed, policy=policy)
    if as_json:
        emit_json([a.to_dict() for a in found])
        return
    if not found:
        click.echo("no alerts" if include_closed else "no open alerts")
        return
    click.echo(_alerts_table(found))


def _print_report(result: MonitorReport) -> None:
    o = result.overall
    scope = f"policy {result.policy}" if result.policy else "all policies"
    limit = f"last {result.window}" if result.window else "all"
    since = f" since {result.since}" if result.since else ""
    click.echo(f"{scope}: {limit} events{since}: {o.events} found", nl=False)
    click.echo(f" ({o.first_at[:19]} to {o.last_at[:19]} UTC)" if o.first_at and o.last_at else "")
    if not o.events:
        return
    click.echo("\nscores")
    headers = ["POLICY", "EVENTS", "ASKS", "SCORED", "MEAN", "SD", "P10", "P25", "MEDIAN", "P75"]
    rows = [_score_row(name, s) for name, s in sorted(result.by_policy.items())]
    if len(rows) > 1:
        rows.append(_score_row("(all)", o))
    click.echo(table(rows, [*headers, "ABSTAIN", "FALLBACK"]))
    for title, mix in (
        ("decisions", o.decisions),
        ("statuses", o.statuses),
        ("judge actions", o.actions),
    ):
        if mix.total:
            click.echo(f"\n{title} ({mix.total} asks)\n{_mix_table(mix)}")
    if result.by_source:
        click.echo("\nsources")
        rows = [
            [
                s.source,
                str(s.items),
                str(s.admitted),
                *_dist(s.confidence, ("mean", "p25", "median", "p75")),
            ]
            for s in result.by_source
        ]
        click.echo(table(rows, ["SOURCE", "ITEMS", "ADMITTED", "MEAN", "P25", "MEDIAN", "P75"]))
    if any(f.reviewed for f in result.feedback):
        click.echo("\nreview verdicts by confidence band")
        rows = [
            [f.band, str(f.reviewed), str(f.correct), _num(f.accuracy)] for f in result.feedback
        ]
        click.echo(table(rows, ["BAND", "REVIEWED", "CORRECT", "ACCURACY"]))
    buckets = result.timeline.buckets
    if buckets:
        shown = f", last {_TIMELINE_ROWS} shown" if len(buckets) > _TIMELINE_ROWS else ""
        click.echo(f"\ntimeline (by {result.timeline.granularity}, UTC{shown})")
        rows = [
            [b.start[:16].replace("T", " "), str(b.count), _num(b.mean_score), str(b.abstentions)]
            for b in buckets[-_TIMELINE_ROWS:]
        ]
        click.echo(table(rows, ["START", "EVENTS", "MEAN", "ABSTAINED"]))


def _score_row(name: str, s: WindowStats) -> list[str]:
    return [
        name,
        str(s.events),
        str(s.asks),
        str(s.scores),
        *_dist(s.score, ("mean", "sd", "p10", "p25", "median", "p75")),
        _pct(s.abstention_rate),
        _pct(s.fallback_rate),
    ]


def _dist(d: Distribution, names: tuple[str, ...]) -> list[str]:
    return [_num(getattr(d, n)) for n in names]


def _mix_table(mix: Mix) -> str:
    shares = mix.shares
    rows = [
        [k, str(v), _pct(shares[k])]
        for k, v in sorted(mix.counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return table(rows, ["VALUE", "COUNT", "SHARE"])


def _print_check(result: CheckResult) -> None:
    verdicts = [
        [d.policy_name, d.metric, {True: "DRIFT", False: "ok", None: "n/a"}[d.drifted], d.reason]
        for d in result.drift
    ]
    if not verdicts:
        click.echo("no ask or score events to check")
        return
    click.echo(table(verdicts, ["POLICY", "METRIC", "VERDICT", "WHY"]))
    for title, changed in (("opened", result.opened), ("closed", result.closed)):
        if changed:
            click.echo(f"\n{title} {len(changed)} alert(s)\n{_alerts_table(changed)}")
    if not result.opened and not result.closed:
        click.echo("\nno alert opened or closed")


def _alerts_table(found: list[Alert] | tuple[Alert, ...]) -> str:
    rows = [
        [
            str(a.id),
            a.policy_name,
            a.metric,
            "open" if a.is_open else "closed",
            f"{a.baseline:.3f} -> {a.current:.3f}",
            "-" if a.p_value is None else f"{a.p_value:.2g}",
            "-" if not a.tightened_by else f"+{a.tightened_by:g}",
            a.opened_at[:19],
            (a.closed_at or "-")[:19],
        ]
        for a in found
    ]
    headers = ["ID", "POLICY", "METRIC", "STATE", "BASELINE -> NOW", "P", "TIGHTENED"]
    return table(rows, [*headers, "OPENED (UTC)", "CLOSED (UTC)"])


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
