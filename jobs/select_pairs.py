"""Entrypoint for ``ray job submit --working-dir . -- python jobs/select_pairs.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["select", *sys.argv[1:]]))
