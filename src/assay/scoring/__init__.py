"""Pure scoring math: per-item confidence, the gate, and corroboration."""
