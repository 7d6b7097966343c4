"""``python -m affectlab`` runs the command line."""

import sys

from affectlab.cli import main

sys.exit(main())
