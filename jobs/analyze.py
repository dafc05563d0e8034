"""Entrypoint for ``ray job submit --working-dir . -- python jobs/analyze.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["analyze", *sys.argv[1:]]))
