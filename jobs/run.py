"""The Ray job entry point: ``ray job submit --working-dir . -- python jobs/run.py STAGE ARGS``
runs ``paralib STAGE ARGS`` in the job (``train --config X``, ``mt train --config X``,
``quickstart``); ``python jobs/run.py --help`` lists the stages."""

import sys

from paralib.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
