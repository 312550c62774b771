"""Deprecated name of :mod:`affray.rules.mrq1.core`, kept only for
``affray.commands.demo`` (another branch's file), which imports ``held``,
``movement`` and ``sheet_of`` from here. Delete this module once that
import names ``affray.rules.mrq1.core``. No rule module imports it."""

from affray.rules.mrq1.core import held, movement, sheet_of

__all__ = ["held", "movement", "sheet_of"]
