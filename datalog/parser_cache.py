"""What parsing keeps between processes: the LALR tables of the `.dl` grammar, and programs
parsed before.

Building the tables is most of what compiling a small program costs (a large part of a `sgq
check` or `sgq run` start, many times what loading them costs), so the first process saves the
built parser (lark's `save`) under the user's cache directory, and later ones `load` it. The
file's name holds a digest of the grammar and of lark's version: another grammar or another lark
never reads it. It is written to a temporary name and renamed into place, so a process never
reads a half-written one. Anything that goes wrong (no cache directory, no permission, a file
lark cannot read) only means building the tables as before. `SGQ_CACHE_DIR` moves the cache (an
empty value turns it off).

Parsed programs are kept there too (`saved_program`, `save_program`): a program read from a
file is most likely run again, and loading it parsed skips lark altogether. Such a file holds
the program's text and a stamp of the code that parsed it (the grammar, the transformer and
the durations it reads, the AST classes and lark, by size and modification time, as Python
stamps its bytecode), and is read only when both match: another text that lands on the same
file name, or a program parsed by other code, is parsed again. At most `PROGRAMS_KEPT` are
kept, the least recently written removed first.
"""

from __future__ import annotations

import functools
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lark import Lark

#: parsed programs kept in the cache at most (each a few kB)
PROGRAMS_KEPT = 64


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
    import hashlib

    import lark

    where = cache_dir()
    if where is None:
        return build()
    digest = hashlib.sha256(f"{lark.__version__}\n{grammar}".encode()).hexdigest()[:24]
    path = where / f"dl-parser-{digest}.lark"
    try:
        with open(path, "rb") as f:
            return lark.Lark.load(f)
    except Exception:  # none yet, or unreadable: build it
        pass
    parser = build()
    _write(where, path, parser.save)  # (a read-only home: built each time)
    return parser


def _write(where: Path, path: Path, save: Callable) -> bool:
    """`save(file)` into `path` through a temporary file renamed into place; False when the
    cache cannot be written."""
    try:
        import tempfile  # (only when saving: most starts load, and skip its imports)

        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".dl-")
        try:
            with os.fdopen(fd, "wb") as f:
                save(f)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        return False
    return True


@functools.cache
def _code_stamp() -> tuple:
    """Size and modification time of the code that turns text into a Program: the grammar,
    the transformer, the durations it reads, the AST classes and lark (its package's first
    module); once per process (a miss reads it twice: `saved_program`, `save_program`)."""
    from importlib.util import find_spec

    here = os.path.dirname(__file__)
    files = [os.path.join(here, name) for name in ("dl.lark", "grammar.py", "parser.py", "ast.py")]
    spec = find_spec("lark")
    files.append(spec.origin if spec is not None and spec.origin else "")
    stamp = []
    for name in files:
        try:
            st = os.stat(name)
        except OSError:
            return ()  # (nothing to stamp with: never read, never written)
        stamp.append((st.st_size, st.st_mtime_ns))
    return tuple(stamp)


def _program_path(where: Path, text: str) -> Path:
    return where / f"dl-program-{zlib.crc32(text.encode()):08x}-{len(text)}.pickle"


def saved_program(text: str):
    """The Program parsed from `text` by this code, if the cache holds it, else None."""
    where = cache_dir()
    stamp = _code_stamp() if where is not None else ()
    if not stamp:
        return None
    try:
        import pickle

        with open(_program_path(where, text), "rb") as f:
            saved_stamp, saved_text, program = pickle.load(f)
    except Exception:  # none, or unreadable: parse it
        return None
    if saved_stamp != stamp or saved_text != text:
        return None  # (parsed by other code, or another text on the same name)
    return program


def save_program(text: str, program) -> None:
    """Keep `program`, parsed from `text`, for the next process (and drop the oldest kept
    programs beyond `PROGRAMS_KEPT`); a cache that cannot be written is left alone."""
    where = cache_dir()
    stamp = _code_stamp() if where is not None else ()
    if not stamp:
        return
    import pickle

    try:
        blob = pickle.dumps((stamp, text, program), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # (a program that cannot be pickled is parsed each time, not lost)
        return
    if _write(where, _program_path(where, text), lambda f: f.write(blob)):
        _keep_newest(where)


def _keep_newest(where: Path) -> None:
    """Remove the least recently written programs beyond `PROGRAMS_KEPT`."""
    try:
        kept = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(where)]
        kept = sorted(k for k in kept if os.path.basename(k[1]).startswith("dl-program-"))
        for _mtime, path in kept[: max(0, len(kept) - PROGRAMS_KEPT)]:
            os.unlink(path)
    except OSError:
        pass  # (another process removed it first)
