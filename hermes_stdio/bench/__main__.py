"""``python -m hermes_stdio.bench [options]``: the same as ``hermes-stdio bench``."""

import sys

from . import main

sys.exit(main(sys.argv[1:]))
