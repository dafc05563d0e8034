"""Entrypoint for ``ray job submit --working-dir . -- python jobs/evaluate.py --model DIR ...``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["evaluate", *sys.argv[1:]]))
