"""Models behind small interfaces, each with a registry by name."""
