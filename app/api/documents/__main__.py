"""``python -m app.api.documents``: write the generated documents to ``docs/`` (see ``writer.py``)."""

import sys

from .writer import main

sys.exit(main(sys.argv[1:]))
