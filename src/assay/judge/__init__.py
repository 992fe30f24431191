"""The claim-level judge and the J1 assessment (seed 001): see :mod:`assay.judge.evaluate`."""
