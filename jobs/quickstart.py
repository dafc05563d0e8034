"""Entrypoint for ``ray job submit --working-dir . -- python jobs/quickstart.py``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["quickstart", *sys.argv[1:]]))
