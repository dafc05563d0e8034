"""Entrypoint for ``ray job submit --working-dir . -- python jobs/captions.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["captions", *sys.argv[1:]]))
