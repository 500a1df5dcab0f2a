"""``python -m dpmodels``: the command line (:mod:`dpmodels.cli`)."""

import sys

from .cli import main

sys.exit(main())
