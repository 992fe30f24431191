"""Long statistical checks, deselected by default (marker ``long``): ``make test-long``."""
