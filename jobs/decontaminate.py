"""Entrypoint for ``ray job submit --working-dir . -- python jobs/decontaminate.py --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["decontaminate", *sys.argv[1:]]))
