"""``python -m assay`` runs the command line."""

from assay.cli.main import main

main()
