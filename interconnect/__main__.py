"""``python -m interconnect``: see :mod:`interconnect.cli`."""

import sys

from interconnect.cli import main

sys.exit(main())
