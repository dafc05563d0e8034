"""Entrypoint for ``ray job submit --working-dir . -- python jobs/pivot.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["pivot", *sys.argv[1:]]))
