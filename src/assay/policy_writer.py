"""Write a policy back as TOML, so calibration can publish a new version of it.

:func:`policy_to_toml` emits exactly the shape :meth:`~assay.policy.Policy.as_dict`
describes and :func:`~assay.policy.policy_from_mapping` reads: top-level keys, then one
table per section, nested tables (``[routing.categories.dosage]``) after their parent's
keys. :func:`write_policy_version` bumps the version and writes the file into a policy
folder, where it replaces the policy of the same name (user files win over built-ins).
The version must go up on every change: it is recorded in every audit row.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError
from assay.policy import Policy, load_policy_file

__all__ = ["next_version", "policy_to_toml", "write_policy_version"]


def _value(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(where, value, "give a finite number")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string is a JSON string
    raise InvalidInputError(where, value, "use a number, a boolean or a string")


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _table(path: list[str], table: Mapping[str, Any], out: list[str]) -> None:
    scalars = {k: v for k, v in table.items() if not isinstance(v, Mapping)}
    tables = {k: v for k, v in table.items() if isinstance(v, Mapping)}
    if path and (scalars or not tables):
        out.append(f"\n[{'.'.join(_key(p) for p in path)}]")
    for key, value in scalars.items():
        out.append(f"{_key(key)} = {_value(value, '.'.join([*path, key]))}")
    for key, sub in tables.items():
        _table([*path, key], sub, out)


def policy_to_toml(policy: Policy, *, header: str = "") -> str:
    """The TOML text of ``policy``; ``header`` lines become comments at the top."""
    out = [f"# {line}" if line else "#" for line in header.splitlines()]
    _table([], policy.as_dict(), out)
    return "\n".join(out).lstrip("\n") + "\n"


def next_version(version: str) -> str:
    """``"2"`` -> ``"3"``; ``"2.1"`` -> ``"2.2"``; anything else gets ``".1"`` appended."""
    head, _, last = version.rpartition(".")
    if last.isdigit():
        return f"{head}.{int(last) + 1}" if head else str(int(last) + 1)
    return f"{version}.1"


def write_policy_version(policy: Policy, folder: Path, *, header: str = "") -> tuple[Policy, Path]:
    """Write ``policy`` with the next version to ``folder/<name>.toml`` (atomically) and
    return the new policy as read back from the file, with its path."""
    folder.mkdir(parents=True, exist_ok=True)
    bumped = replace(policy, version=next_version(policy.version))
    target = folder / f"{policy.name}.toml"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{policy.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(policy_to_toml(bumped, header=header))
        written = load_policy_file(tmp)  # never publish a file that does not read back
        if written != bumped:
            raise InvalidInputError(
                "policy", policy.name, "report this: the written policy does not read back"
            )
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return written, target
