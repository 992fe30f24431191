"""Calibration: score maps, labeled sets, thresholds with guarantees."""
