"""Entrypoint for ``ray job submit --working-dir . -- python jobs/encode.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["encode", *sys.argv[1:]]))
