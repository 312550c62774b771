"""Mounted combat in mrq1 (placeholder filled in below)."""

from __future__ import annotations


def check_attack(state, attacker: str, target: str, weapon: str) -> None:
    """Refuse an attack the mounted rules forbid (see below)."""
    return None
