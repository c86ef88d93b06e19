"""``python -m pantheon`` is the ``pantheon`` command."""

import sys

from pantheon.server.cli import main

sys.exit(main())
