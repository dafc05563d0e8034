"""Entrypoint for ``ray job submit --working-dir . -- python jobs/mt_train.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["mt", "train", *sys.argv[1:]]))
