"""Hero Points in mrq1 (filled in below)."""

from __future__ import annotations

from affray.rules.base import RuleError


def spend(draft, who, command) -> None:
    raise RuleError("not yet")
