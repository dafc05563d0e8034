"""Entrypoint for ``ray job submit --working-dir . -- python tune/run.py --space F --config X``."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["tune", *sys.argv[1:]]))
