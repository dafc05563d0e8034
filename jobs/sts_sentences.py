"""Entrypoint for ``ray job submit --working-dir . -- python jobs/sts_sentences.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["sts-sentences", *sys.argv[1:]]))
