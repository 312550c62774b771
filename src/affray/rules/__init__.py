"""Rule systems: one package each, behind the seam in :mod:`affray.rules.base`."""
