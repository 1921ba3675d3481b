"""sgq: streaming graph queries."""
__version__ = "0.1.0"
