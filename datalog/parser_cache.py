"""The LALR tables of the `.dl` grammar, kept between processes.

Building them is most of what compiling a small program costs (about 60 ms of a `sgq check`
or `sgq run` start, against about 6 ms to load them), so the first process saves the built
parser (lark's `save`) under the user's cache directory, and later ones `load` it. The file's
name holds a digest of the grammar and of lark's version: another grammar or another lark
never reads it. It is written to a temporary name and renamed into place, so a process never
reads a half-written one. Anything that goes wrong (no cache directory, no permission, a file
lark cannot read) only means building the tables as before. `SGQ_CACHE_DIR` moves the cache
(an empty value turns it off).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import lark
from lark import Lark


def cache_dir() -> Path | None:
    """Where sgq keeps what it can build again: `SGQ_CACHE_DIR`, else `$XDG_CACHE_HOME/sgq`,
    else `~/.cache/sgq`; None when `SGQ_CACHE_DIR` is set empty."""
    env = os.environ.get("SGQ_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sgq"


def cached_parser(grammar: str, build: Callable[[], Lark]) -> Lark:
    """The parser `build()` makes from `grammar`, loaded from the cache when it holds one for
    this grammar and this lark, else built (and saved there for the next process)."""
    where = cache_dir()
    if where is None:
        return build()
    digest = hashlib.sha256(f"{lark.__version__}\n{grammar}".encode()).hexdigest()[:24]
    path = where / f"dl-parser-{digest}.lark"
    try:
        with open(path, "rb") as f:
            return Lark.load(f)
    except Exception:  # none yet, or unreadable: build it
        pass
    parser = build()
    try:
        import tempfile  # (only when saving: most starts load, 4 ms of imports saved)

        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".dl-parser-")
        try:
            with os.fdopen(fd, "wb") as f:
                parser.save(f)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass  # a read-only home: build each time
    return parser
