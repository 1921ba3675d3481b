"""The one table from algebra nodes to the Spark engine's batch programs (as
incremental/runtime.py's PHYSICAL is for the single-process engine): each takes the node and
the batch's context and returns the node's relation (live tuples and delta) for the batch."""

from __future__ import annotations

from ..sga.algebra import Attribute, Filter, Path, Pattern, Rename, Union, Vertices, WScan
from .closure import path
from .pattern import pattern
from .selects import attribute, filter_, rename, union, vertices, wscan

PROGRAMS = {
    WScan: wscan,
    Filter: filter_,
    Rename: rename,
    Attribute: attribute,
    Union: union,
    Pattern: pattern,
    Vertices: vertices,
    Path: path,
}

#: the nodes that keep a table of their own (the others map their input's)
STATEFUL = (WScan, Union, Pattern, Vertices, Path)
