"""Entrypoint for ``ray job submit --working-dir . -- python jobs/train.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
