"""``python -m dpmodels``: the command line (:mod:`dpmodels.cli`).

Importing this module runs nothing: the command line starts only when it is the program.
"""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
