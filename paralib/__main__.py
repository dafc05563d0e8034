"""``python -m paralib`` is the ``paralib`` command."""

import sys

from paralib.cli import main

sys.exit(main())
