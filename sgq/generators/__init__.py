"""Deterministic synthetic edge streams: `snb` (LDBC-SNB-like), `so` (StackOverflow-like),
`gmark` (random schema), the inputs of the thesis's experiments (Ch. 4.5.1, 5.5, 6.5) made
reproducible from a seed.

>>> from sgq.generators import generate, write_csv
>>> import io
>>> out = io.StringIO()
>>> write_csv(generate("snb", 3, seed=7), out)
3
>>> out.getvalue().splitlines()[0]
'src,trg,label,ts,op'
"""

from .csv_out import HEADER, write_csv
from .stream import KINDS, MAX_DELETIONS, generate, gmark_schema, labels_of

__all__ = ["generate", "write_csv", "labels_of", "gmark_schema", "KINDS", "HEADER", "MAX_DELETIONS"]
