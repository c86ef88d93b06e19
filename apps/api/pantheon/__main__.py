"""``python -m pantheon`` is the ``pantheon`` command."""

import sys

from pantheon.cli import main

sys.exit(main())
