"""No benchmark figures or history in source docstrings and comments (issue 65).

Measurements belong in docs/benchmarks.md, history in git. Code says what a thing is, its
contract and its cost (O(...), per update), and a default's reason in words ("measured faster
on the dense rows, docs/benchmarks.md"). This test reads the comments and docstrings of every
module under the package folders (the tokenize module: COMMENT tokens, and the STRING tokens
that are a module's, class's or function's docstring; code and other strings are not read,
so a benchmark may still print its figures) and fails on:

- run numbers: `Run 51`;
- a percentage beside what it measures: `-14% CPU`, `12% faster`, `CPU time -3%`;
- ratios: `1.4x`, `3-23x`;
- times as measurements: `23.0 s of user CPU`, `6 ms of a start`, `took 21 s`, `~1 µs per`,
  `4.6 s`, `~5-10 s`;
- memory as a measurement: `15 GB at a 67k-edge window`; `3,700 times more`;
- instruction counts and callgrind: `9,184M instructions`;
- rates: `80.1k e/s`, `500 edges/s`;
- history: `was 3e5, now 1e5` (a figure before `now`), `(was 3e5)`, and a state or format
  version's changelog (`STATE_VERSION = 3  # 2: ...; 3: ...`: a version constant keeps one
  line of meaning).

Text in backticks or in single quotes is code (`.window 10x`, '10x') and is not read.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("base", "datalog", "sga", "incremental", "oracle", "spark_engine", "sgq", "benchmarks")

_TIME = r"\d+(?:\.\d+)?\s?(?:s|ms|µs|us|ns)"
_WHAT = r"(?:faster|slower|less|more|fewer|cheaper|dearer|CPU|time|instructions|throughput|latency)"
FIGURES = {
    "run number": re.compile(r"\bRuns? \d+\b"),
    "percentage": re.compile(
        rf"\d+(?:\.\d+)?\s?%\s?(?:to\s?[-+−]?\d+(?:\.\d+)?\s?%\s?)?{_WHAT}\b"
        rf"|\b{_WHAT}\s?(?:by|of|:)?\s?[-+−]?\d+(?:\.\d+)?\s?%",
        re.I,
    ),
    "ratio": re.compile(r"\b\d+(?:\.\d+)?x\b"),
    "time": re.compile(
        rf"\b{_TIME} of (?:user |system )?CPU\b"
        rf"|\b{_TIME}\s(?:of|on|per|against|to)\b"
        rf"|(?:\babout|~|\btook|\btakes|\bcosts?|\bspent|\bsaves?|\bsaved)\s?{_TIME}\b"
        r"|~\s?\d+[-–]\d+\s?(?:s|ms|µs|us|ns)\b"
        r"|\b\d+\.\d+\s?(?:s|ms|µs|us|ns)\b",
        re.I,
    ),
    "size": re.compile(r"\b\d+(?:\.\d+)?\s?(?:GB|MB)\s(?:at|of|on|per)\b"),
    "times": re.compile(
        r"\b\d[\d,.]*\stimes\s(?:more|less|faster|slower|fewer|cheaper|dearer)\b", re.I
    ),
    "instructions": re.compile(r"\bcallgrind\b|\d[\d,.]*\s?[kMG]?\s?(?:instructions|Ir)\b", re.I),
    "rate": re.compile(r"\d[\d,.]*\s?[kKM]?\s?(?:e/s|edges/s|edges per second)", re.I),
    "history": re.compile(r"\bwas [^,.;()]{0,40}\d[^,.;()]{0,40}, now\b|\(was\b", re.I),
}
_CODE = re.compile(r"`[^`]*`|'[^'\s]+'")
_VERSION_LINE = re.compile(r"\b(?:STATE_VERSION|FORMAT)\s*=\s*\d+")
_CHANGELOG = re.compile(r"\b\d+:")


def _docstring_lines(tree: ast.Module) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                lines.add(body[0].lineno)
    return lines


def prose(source: str):
    """`(line, text)` of every comment and docstring line of `source`, code spans blanked,
    and `(line, None)` for a version constant whose comment is a changelog."""
    docstrings = _docstring_lines(ast.parse(source))
    lines = source.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            line = tok.start[0]
            if _VERSION_LINE.search(lines[line - 1]) and _CHANGELOG.search(tok.string):
                yield line, None
            yield line, _CODE.sub("``", tok.string)
        elif tok.type == tokenize.STRING and tok.start[0] in docstrings:
            for k, text in enumerate(tok.string.splitlines()):
                yield tok.start[0] + k, _CODE.sub("``", text)


def figures(source: str) -> list[tuple[int, str, str]]:
    """`(line, kind, text)` of each figure or piece of history in `source`'s prose."""
    found = []
    for line, text in prose(source):
        if text is None:
            found.append((line, "version changelog", ""))
            continue
        for kind, pattern in FIGURES.items():
            match = pattern.search(text)
            if match:
                found.append((line, kind, match.group(0)))
    return found


def sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py"))


def test_no_figures_in_source() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {kind}: {text!r}"
        for path in sources()
        for line, kind, text in figures(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "benchmark figures or history in source prose:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "text",
    [
        "took 23.0 s of user CPU against 30.7",
        "docs/benchmarks.md Run 51",
        "-14% CPU on the dense rows",
        "-14% to -18% CPU",
        "measured: 1.4x",
        "RPQ Q2 runs 3-23x faster",
        "callgrind 9,184M",
        "5,939.0M instructions",
        "6 ms of a start",
        "which took 29 s of planning",
        "~1 µs per edge",
        "80.1k e/s",
        "94 of them, 4.6 s, at 100,000",
        "started on the first call, ~5-10 s",
        "(15 GB at a 67k-edge window)",
        "overestimate its CPU time about 3,700 times more than WSCAN's",
        "`coarse_work` 1e5 (was 3e5, under which",
        "was 3e5, now 1e5",
    ],
)
def test_a_figure_is_found(text: str) -> None:
    assert figures(f"# {text}\n"), text
    assert figures(f'"""{text}"""\n'), text


@pytest.mark.parametrize(
    "text",
    [
        "Cost per round: O(rows changed + keys emitted), O(log k) for a new instant",
        "`t1 + 1h` -> 3600, `24h` -> 86400",
        "`.window 10x` -> bad duration '10x': unknown unit 'x'",
        "the reverse edge follows at once 70% of the time",
        "bytes asked of a finished file per read: 1 << 20",
        "version 0.1.0, dated 2024-01-31",
        "`None`: not done in 300 s",
        "> 1: sgq is faster",
        "what it was before the round, or past `now` if that was not live",
        "results whose emitted end was L or below, now widened to their bottleneck",
    ],
)
def test_prose_is_not_a_figure(text: str) -> None:
    assert not figures(f"# {text}\n"), text
    assert not figures(f'"""{text}"""\n'), text


def test_a_state_version_keeps_one_line_of_meaning() -> None:
    assert figures("STATE_VERSION = 3  # 2: entries carry a start; 3: no map by trg\n")
    assert not figures("STATE_VERSION = 3  # entries with their run's start\n")
    assert figures("x = 1\n") == []
    # a string that is no docstring is output, not prose
    assert figures('x = 1\nprint("took 23.0 s of user CPU")\n') == []
