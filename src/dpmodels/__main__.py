"""``python -m dpmodels``: the command line (:mod:`dpmodels.cli`).

Guarded so that importing this module (e.g. a crafted model file naming it) runs nothing.
"""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
