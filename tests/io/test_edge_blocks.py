"""A finished file read a block at a time (sgq/edge_blocks.py) against the line reader: the
same edges, the same errors at the same lines, the same bad lines skipped; the order check and
the batches over blocks against `ordered` and `batches`."""

from __future__ import annotations

import io
from itertools import compress

import pytest
from block_reading import Pieces, read_all
from hypothesis import given, settings
from hypothesis import strategies as st
from sgq.base.errors import UserError

import sgq.evaluation as evaluation
from sgq.evaluation import batches, block_batches
from sgq.reorder import ordered, ordered_blocks
from sgq.stream_io import FileLines, StreamError, decoded_lines, parse_blocks

# fields: plain, so that whole chunks take the block path, or what sends a chunk to the line
# reader (quotes, spaces, comments, other whitespace, bad values)
_NAMES = ["a", "b", "p1", "m22", "knows", "x"]
_NAME = (
    st.integers(0, len(_NAMES) - 1),  # (turned by the line's index: see `_line`)
    st.sampled_from(["", " a", "b ", '"q,r"', "é", "a\xa0", "#c", "a\tb", "\u3000", "-"]),
)
_TIME = (
    st.integers(-3, 30),
    st.sampled_from(["", "x", " 4", "1_0", "+3", "٣", "9" * 30, "0x1", "-0", "07"]),
)
_OP = (st.sampled_from(["+", "-", ""]), st.sampled_from(["?", " -"]))


@st.composite
def _line(draw, sep: str, width: int, odd: bool, index: int) -> str:
    """Line `index` of a file: plain, or with `odd`, maybe not (a field in two, a blank or
    comment line, another count of fields). A plain time is no other line's, and a plain name
    is drawn turned by the index, so that the lines of a chunk differ (hypothesis draws the
    same simple value often)."""

    def field(kind: tuple) -> str:
        if odd and draw(st.booleans()):
            return draw(kind[1])
        value = draw(kind[0])
        if kind is _TIME:
            return str(value + 40 * index)
        return _NAMES[(value + index) % len(_NAMES)] if kind is _NAME else value

    kind = draw(st.integers(0, 19)) if odd else 19
    if kind == 0:
        return draw(st.sampled_from(["", "# a comment", "  ", "\r"]))
    n = width if kind > 2 else draw(st.integers(1, 6))
    fields = [field(_NAME), field(_NAME), field(_NAME), field(_TIME), field(_OP)][:n]
    fields += [field(_NAME) for _ in range(n - len(fields))]
    return sep.join(fields)


@st.composite
def _file(draw, fmt: str) -> tuple[bytes, tuple | None]:
    """A file of lines any of which may be odd, or of plain lines with at most one odd (most
    of its chunks of many lines are then plain)."""
    sep = "\t" if fmt == "tsv" else ","
    columns = draw(st.sampled_from([None, ("src", "trg", "label", "ts", "op"), None]))
    width = len(columns) if columns else draw(st.sampled_from([4, 5]))
    n = draw(st.integers(0, 40))
    if draw(st.sampled_from([True, True, False])):
        odd = range(n)
    else:
        odd = draw(st.sampled_from([(), (), (draw(st.integers(0, max(n - 1, 0))),)]))
    lines = [draw(_line(sep, width, i in odd, i)) for i in range(n)]
    if draw(st.booleans()):
        lines.insert(0, sep.join(["src", "trg", "label", "ts", "op"][:width]))
    end = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = end.join(lines) + draw(st.sampled_from(["", end]))
    return text.encode("utf-8"), columns


@settings(max_examples=400)
@given(
    fmt=st.sampled_from(["csv", "tsv"]),
    data=st.data(),
    piece=st.sampled_from([1, 3, 7, 16, 64, 1 << 20]),
    skip=st.booleans(),
)
def test_blocks_read_what_the_line_reader_reads(fmt, data, piece, skip):
    blob, columns = data.draw(_file(fmt))
    want = read_all(decoded_lines(io.BytesIO(blob)), fmt, columns, skip)
    got = read_all(FileLines(Pieces(blob, piece)), fmt, columns, skip)
    assert got == want


@settings(max_examples=200)
@given(
    fmt=st.sampled_from(["csv", "tsv"]),
    data=st.data(),
    piece=st.sampled_from([1, 7, 64, 1 << 20]),
    labels=st.sampled_from([{"knows"}, {"a", "x"}, set(), {"a", "b", "p1", "m22", "knows", "x"}]),
)
def test_blocks_given_the_read_labels_leave_out_only_edges_of_others(fmt, data, piece, labels):
    """With the labels a program reads, a block's edges are the line reader's but for some of
    other labels, which it counts (`left_out`); the lines, the errors and the count of all
    edges stay the line reader's."""
    blob, columns = data.draw(_file(fmt))
    want, _bad, want_error = read_all(decoded_lines(io.BytesIO(blob)), fmt, columns, False)
    got, left_out, error = [], 0, None
    blocks = parse_blocks(FileLines(Pieces(blob, piece)), fmt, columns, "in", labels=labels)
    try:
        for block in blocks:
            kept = block.kept if block.kept is not None else [True] * len(block.times)
            assert len(kept) == len(block.times) == len(block.lines)
            got += zip(block.edges, compress(block.lines, kept), strict=True)
            left_out += block.left_out
    except StreamError as exc:
        error = str(exc)
    assert error == want_error
    assert len(got) + left_out == len(want)
    assert [pair for pair in want if pair[0][2] in labels] == [
        pair for pair in got if pair[0][2] in labels
    ]
    assert set(got) <= set(want)


def test_a_block_given_the_read_labels_makes_no_edge_of_others():
    text = "src,trg,label,ts\n"
    text += "".join(f"v{i},w,{'knows' if i % 3 else 'likes'},{i}\n" for i in range(30))
    lines = FileLines(io.BytesIO(text.encode()))
    (block,) = parse_blocks(lines, "csv", None, "in", labels={"knows"})
    assert [edge[0] for edge in block.edges] == [f"v{i}" for i in range(30) if i % 3]
    assert block.times == list(range(30)) and block.lines == range(2, 32)
    assert block.left_out == 10 and block.kept[:4] == [False, True, True, False]
    # read in small chunks: each block's lines go on from the last block's, left out or not
    got = []
    for part in parse_blocks(
        FileLines(Pieces(text.encode(), 40)), "csv", None, "in", labels={"knows"}
    ):
        kept = part.kept if part.kept is not None else [True] * len(part.times)
        got += zip(part.edges, compress(part.lines, kept), strict=True)
    assert [(edge[0], line) for edge, line in got] == [(f"v{i}", i + 2) for i in range(30) if i % 3]
    assert block.edges_before(4) == block.edges[:2]
    # an edge out of order after edges left out: the kept edges before it, then the error
    block.times[4] = 0
    position = [0]
    got = []
    with pytest.raises(StreamError, match=r"in:6: "):
        for part in ordered_blocks(iter([block]), "in", position):
            got += part
    assert got == block.edges[:2] and position[0] == 6


def test_a_plain_chunk_is_read_whole_and_a_file_with_a_quote_line_by_line():
    text = "src,trg,label,ts\n" + "".join(f"v{i},w{i % 7},knows,{i}\n" for i in range(50))
    blocks = list(parse_blocks(FileLines(io.BytesIO(text.encode())), "csv", None, "in"))
    assert len(blocks) == 1 and blocks[0].lines == range(2, 52)  # one block: read whole
    assert blocks[0].edges[3] == ("v3", "w3", "knows", 3, "+") and blocks[0].times[3] == 3
    quoted = text.replace("v7,", '"v7",')
    blocks = list(parse_blocks(FileLines(io.BytesIO(quoted.encode())), "csv", None, "in"))
    assert len(blocks) == 1 and type(blocks[0].lines) is list  # the line reader's block
    assert blocks[0].edges[7] == ("v7", "w0", "knows", 7, "+") and blocks[0].lines[7] == 9


def test_lines_one_field_too_many_and_one_too_few_are_bad_lines_in_a_block_too():
    text = b"a,b,l,1\na,b,l,2,9\nc,d,3\ne,f,l,4\n"  # as many commas as two good lines
    want = read_all(decoded_lines(io.BytesIO(text)), "csv", None, True)
    assert read_all(FileLines(io.BytesIO(text)), "csv", None, True) == want
    assert [edge for edge, _line in want[0]] == [("a", "b", "l", 1, "+"), ("e", "f", "l", 4, "+")]


def test_a_bad_line_stops_the_input_after_the_edges_before_it():
    text = "".join(f"v{i},w,knows,{i}\n" for i in range(10)) + "v,w,knows,later\nv,w,k,11\n"
    got = []
    with pytest.raises(StreamError, match=r"in:11: time 'later' is not an integer"):
        for block in parse_blocks(FileLines(io.BytesIO(text.encode())), "csv", None, "in"):
            got.extend(block.edges)
    assert got == [(f"v{i}", "w", "knows", i, "+") for i in range(10)]


def _blocks_of(times: list[int], cuts: list[int]):
    """EdgeBlocks of edges at `times`, cut before the indexes `cuts`, edge i on line i + 2."""
    from sgq.edge_blocks import EdgeBlock

    edges = [(f"v{i}", "w", "l", t, "+") for i, t in enumerate(times)]
    out, prev = [], 0
    for cut in sorted({c for c in cuts if c < len(times)}) + [len(times)]:
        if prev < cut:
            out.append(EdgeBlock(edges[prev:cut], list(times[prev:cut]), range(prev + 2, cut + 2)))
            prev = cut
    return edges, out


@settings(max_examples=300)
@given(
    times=st.lists(st.integers(0, 8), max_size=40),
    cuts=st.lists(st.integers(1, 39), max_size=5),
    sort=st.booleans(),
)
def test_ordered_blocks_check_order_as_ordered_does(times, cuts, sort):
    if sort:
        times = sorted(times)
    edges, blocks = _blocks_of(times, cuts)

    def run(make):
        position = [0]
        got = []
        try:
            for edge in make(position):
                got.append(edge)
        except StreamError as exc:
            return got, str(exc), position[0]
        return got, None, None

    def by_edge(position):
        def fed():
            for i, edge in enumerate(edges):
                position[0] = i + 2
                yield edge

        return ordered(fed(), "in", position)

    def by_block(position):
        for part in ordered_blocks(iter(blocks), "in", position):
            yield from part

    assert run(by_block) == run(by_edge)


@settings(max_examples=300)
@given(
    times=st.lists(st.integers(-12, 12), max_size=60).map(sorted),
    cuts=st.lists(st.integers(1, 59), max_size=6),
    size=st.sampled_from([1, 2, 3, 5, 8]),
    per_instant=st.booleans(),
    slide=st.sampled_from([None, 1, 2, 3, 5]),
)
def test_block_batches_are_the_batches_of_the_edges(times, cuts, size, per_instant, slide):
    edges, blocks = _blocks_of(times, cuts)
    before = evaluation.BATCH_EDGES
    evaluation.BATCH_EDGES = size  # (small batches: every cut rule comes into play)
    try:
        got = list(block_batches([b.edges for b in blocks], per_instant, slide))
        want = list(_reference_batches(edges, per_instant, size, slide))
    finally:
        evaluation.BATCH_EDGES = before
    assert got == want


def _reference_batches(edges: list, per_instant: bool, size: int, slide: int | None = None):
    """The batching rule an edge at a time: a cut before an edge whose time differs from the
    batch's last one (per instant, once the batch holds `size` edges, or in another slide
    `⌊t/slide⌋` than the batch's), or at `2 * size`."""
    batch: list = []
    current = None
    for edge in edges:
        t = edge[3]
        if batch and (
            (
                t != current
                and (
                    per_instant or len(batch) >= size or (slide and t // slide != current // slide)
                )
            )
            or len(batch) >= 2 * size
        ):
            yield batch
            batch = []
        current = t
        batch.append(edge)
    if batch:
        yield batch


def test_a_batch_keeps_to_one_slide():
    edges = [(f"v{i}", "w", "l", t, "+") for i, t in enumerate([-3, -1, 0, 1, 1, 2, 5])]
    got = [[e[3] for e in b] for b in block_batches([edges[:3], edges[3:]], False, 2)]
    assert got == [[-3], [-1], [0, 1, 1], [2], [5]]


def test_edges_one_at_a_time_are_batched_as_in_lists():
    edges = [(f"v{i}", "w", "l", i // 3, "+") for i in range(20)]
    assert list(batches(iter(edges), True)) == list(_reference_batches(edges, True, 4096))


def test_block_batches_hand_over_the_edges_before_an_error():
    def lists():
        yield [("a", "b", "l", 1, "+"), ("a", "b", "l", 2, "+")]
        raise UserError("bad line")

    got = block_batches(lists(), per_instant=False)
    assert next(got) == [("a", "b", "l", 1, "+"), ("a", "b", "l", 2, "+")]
    with pytest.raises(UserError):
        next(got)
