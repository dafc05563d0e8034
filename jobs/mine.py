"""Entrypoint for ``ray job submit --working-dir . -- python jobs/mine.py --config X``
(or ``... jobs/mine.py SRC TGT --output DIR``)."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(["mine", *sys.argv[1:]]))
