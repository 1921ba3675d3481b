"""sgq's version: printed by `sgq --version` and written into every checkpoint, which a
different version refuses to load."""

VERSION = "0.1.0"
