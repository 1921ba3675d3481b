"""`sgq run --checkpoint DIR`: a checkpointed run writes what a plain run writes (interval
rows sorted per instant), a run killed anywhere (between batches, in the middle of writing a
checkpoint, right after one) and run again ends with byte-identical output and rejects files,
whatever the string hashing of each process; checkpoints of another program, window, version,
input or a damaged file are refused; the file is gzip'd JSON (sgq/checkpoint.py)."""

from __future__ import annotations

import gzip
import json
import math
import random
import signal
from pathlib import Path

import pytest
from cli_support import (
    DELTA_HEADER,
    INTERVAL_HEADER,
    NOTIFICATION,
    Q4,
    Q7,
    REPO,
    api_rows,
    assert_one_line_error,
    multiset,
    prepared_dir,
    read_edges_csv,
    read_result,
    sgq_main,
    sgq_proc,
    social_edges,
    stats_of,
    write_edges,
)

import sgq
from sgq.checkpoint import FILE, FORMAT
from sgq.cli import main

EVERY = 200  # --checkpoint-every of the kill cases
RPQ8 = REPO / "specs" / "queries" / "bench" / "snb" / "rpq8.dl"  # [hasCreator*/knows*]
# a UNION of two labels' scans, planned as one WSCAN over both (thesis rule 13)
INTERACTIONS = REPO / "specs" / "queries" / "examples" / "interactions.dl"
SNB_EDGES = 2000


# ---- the streams ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("ckpt")


@pytest.fixture(scope="module")
def snb(workdir) -> Path:
    """An SNB-like stream (`sgq gen snb`) with 5% `-` lines."""
    path = workdir / "snb.csv"
    assert (
        main(
            [
                "gen",
                "snb",
                "--edges",
                str(SNB_EDGES),
                "--seed",
                "3",
                "--deletions",
                "0.05",
                "--output",
                str(path),
            ]
        )
        == 0
    )
    return path


@pytest.fixture(scope="module")
def messy(workdir, snb) -> dict:
    """The SNB stream gzip'd with bad lines, edges late within 1h (reordered) and edges late
    by more (dropped): the input of the --on-error skip --max-lateness 1h case."""
    rng = random.Random(17)
    lines = snb.read_bytes().splitlines()
    header, body = lines[0], lines[1:]
    times = [int(line.split(b",")[3]) for line in body]
    out = [header]
    bad = late = dropped = 0
    i = 0
    while i < len(body):
        r = rng.random()
        if r < 0.02 and i + 3 < len(body) and times[i + 3] - times[i] <= 3600:
            out += [body[i + 1], body[i + 2], body[i]]  # body[i] arrives 2 lines late
            late += times[i + 2] > times[i]
            i += 3
            continue
        if r < 0.025:
            j = i
            while j < len(body) and times[j] - times[i] <= 7200:
                j += 1
            if j < len(body) - 1:
                out += body[i + 1 : j + 1] + [body[i]]  # more than 2h late: dropped
                dropped += 1
                i = j + 1
                continue
        out.append(body[i])
        r = rng.random()
        if r < 0.01:
            out.append(b"p1,p2,knows")
            bad += 1
        elif r < 0.02:
            out.append(b"p1,p2,knows,tomorrow,+")
            bad += 1
        elif r < 0.025:
            out.append(b"p1,p\xff,knows,%d,+" % times[i])
            bad += 1
        i += 1
    path = snb.parent / "messy.csv.gz"
    path.write_bytes(gzip.compress(b"\n".join(out) + b"\n", mtime=0))
    assert bad > 10 and late > 5 and dropped > 3
    return {"path": path, "bad": bad, "dropped": dropped}


# ---- the cases: a program, an input, options --------------------------------------------

CASES = {
    # a join and two closures (RL+ over a join with knows+), intervals, with `-` edges
    "q7-intervals": dict(program=Q7, input="snb", out="out.csv", opts=[]),
    # the same as deltas
    "q7-deltas": dict(program=Q7, input="snb", out="out.csv", opts=["--emit", "deltas"]),
    # a regular path query over a messy gzip'd input: bad lines skipped, late edges
    # reordered or dropped, JSON Lines output, the rejects file compared too
    "q4-messy": dict(
        program=Q4,
        input="messy",
        out="out.jsonl",
        opts=["--on-error", "skip", "--max-lateness", "1h"],
    ),
    # a nullable path at the output on inserts only: native deltas (PATH's level closures
    # write to the delta view) with ε-pairs as rows, never handed over to S-PATH
    "rpq8-deltas": dict(program=RPQ8, input="inserts", out="out.csv", opts=["--emit", "deltas"]),
    # the optimizer's WSCAN over two labels, with `-` edges: each label's coverage saved
    "interactions-deltas": dict(
        program=INTERACTIONS, input="snb", out="out.csv", opts=["--emit", "deltas"]
    ),
}


def _inputs(snb, messy):
    inserts = snb.with_name("snb-inserts.csv")
    if not inserts.exists():
        lines = snb.read_text().splitlines(keepends=True)
        inserts.write_text("".join(line for line in lines if not line.rstrip().endswith(",-")))
    return {"snb": snb, "messy": messy["path"], "inserts": inserts}


class Runner:
    """Runs one case's command in a directory: its output, rejects and checkpoint there."""

    def __init__(self, case: str, root: Path, inputs: dict):
        spec = CASES[case]
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.out = root / spec["out"]
        self.rejects = root / "rejects.csv"
        self.ckpt = root / "ckpt"
        self.args = [
            "run",
            spec["program"],
            "--input",
            inputs[spec["input"]],
            "--output",
            self.out,
            "--rejects",
            self.rejects,
            "--no-progress",
            "--checkpoint",
            self.ckpt,
            "--checkpoint-every",
            EVERY,
            *spec["opts"],
        ]

    def run(self, hashseed, kill: str | None = None):
        kill_at = ["--kill-at", kill] if kill else []
        return sgq_proc(self.args + kill_at, hashseed=hashseed)

    def files(self) -> tuple[bytes, bytes | None]:
        rejects = self.rejects.read_bytes() if self.rejects.exists() else None
        return self.out.read_bytes(), rejects


_REFERENCES: dict = {}


@pytest.fixture
def reference(workdir, snb, messy):
    """The uninterrupted checkpointed run of a case (PYTHONHASHSEED=1): its files, stats,
    and how many kill points of each kind it passes."""

    def get(case: str) -> dict:
        if case not in _REFERENCES:
            runner = Runner(case, workdir / f"ref-{case}", _inputs(snb, messy))
            proc = runner.run(hashseed=1)
            assert proc.returncode == 0, proc.stderr
            stats = stats_of(proc.stderr)
            checkpoints = int(stats["extra"].split(" written")[0].rsplit("(", 1)[1])
            _REFERENCES[case] = {
                "files": runner.files(),
                "stats": stats,
                "checkpoints": checkpoints,
                "args": runner.args,
            }
        return _REFERENCES[case]

    return get


def _batches(snb: Path) -> int:
    """Batches (distinct times) of the clean stream: the `batch` kill points."""
    return len({e[3] for e in read_edges_csv(snb)})


# ---- (a) a checkpointed run writes what a plain run writes ------------------------------


@pytest.mark.parametrize(
    "case", ["q7-intervals", "q7-deltas", "rpq8-deltas", "interactions-deltas"]
)
def test_checkpointed_output_equals_plain_output(case, workdir, snb, messy, reference, capsys):
    ref = reference(case)
    deltas = case.endswith("deltas")
    emit = "deltas" if deltas else "intervals"
    out, rejects = ref["files"]
    assert rejects is None
    # another process, other string hashing: the same bytes
    again = Runner(case, workdir / f"again-{case}", _inputs(snb, messy))
    proc = again.run(hashseed=2)
    assert proc.returncode == 0, proc.stderr
    assert again.files()[0] == out
    # a plain run (no checkpoint) in this process
    program, stream = CASES[case]["program"], _inputs(snb, messy)[CASES[case]["input"]]
    plain = workdir / f"plain-{case}.csv"
    code, _, err = sgq_main(
        ["run", program, "-i", stream, "-o", plain, "--emit", emit, "--no-progress"], capsys
    )
    assert code == 0, err
    header, rows = read_result(out.decode())
    _, plain_rows = read_result(plain)
    edges = read_edges_csv(stream)
    if deltas:
        assert header == DELTA_HEADER
        assert out == plain.read_bytes()
        assert rows == api_rows(program, edges, "deltas")
    else:
        # the same rows; in checkpoint mode those of one instant come sorted by key
        assert header == INTERVAL_HEADER
        assert multiset(rows) == multiset(plain_rows)
        assert rows == api_rows(program, edges, "intervals", sort_rounds=True)
        assert rows != plain_rows  # (else the sorting would not be tested)
    assert len(rows) > (300 if case == "interactions-deltas" else 1000)
    assert stats_of(err)["rows"] == ref["stats"]["rows"] == len(rows)
    if case == "interactions-deltas":  # the run's plan had the WSCAN over two labels
        layout = json.loads(gzip.decompress((again.ckpt / FILE).read_bytes()))["layout"]
        assert any("WSCAN[replyOf, hasTag -> Points]" in name for name in layout), layout


# ---- (b) killed anywhere, run again: the same bytes -------------------------------------


def _kill_plan() -> list:
    """(case, chain of kill points) with 20 points in all, seeded: a point is `(kind,
    fraction)`, K = the fraction of the run's points of that kind (at least 1). Fixed
    corners: the first checkpoint killed half-written, the last (end of input) killed right
    after it was written, and chains of kills before a clean rerun."""
    rng = random.Random(20240601)
    kinds = ["", "batch", "mid-write", "written"]
    plan = [
        ("q7-intervals", [("mid-write", 0.0)]),
        ("q7-intervals", [("written", 1.0)]),
        ("q7-deltas", [("batch", 0.05)]),
        ("q7-deltas", [("", 0.3), ("mid-write", 0.3)]),
        ("q4-messy", [("batch", 0.2), ("written", 0.2), ("", 0.2)]),
        ("q4-messy", [("written", 1.0)]),
        ("rpq8-deltas", [("batch", 0.3)]),
        ("rpq8-deltas", [("", 0.5), ("mid-write", 0.5)]),
        ("interactions-deltas", [("batch", 0.4), ("written", 0.3)]),
    ]
    assert len(plan) == CORNERS
    counts = {"q7-intervals": 4, "q7-deltas": 4, "q4-messy": 3}
    for case, n in counts.items():
        for _ in range(n):
            plan.append((case, [(rng.choice(kinds), round(rng.uniform(0.0, 0.97), 2))]))
    assert sum(len(chain) for _, chain in plan) == 25
    return plan


CORNERS = 9  # the fixed cases first in `_kill_plan`
KILLS = _kill_plan()


def _kill_env(kind: str, fraction: float, batches: int, checkpoints: int, done: float) -> str:
    """The `--kill-at` value for a point; `done` the share of the run
    already behind (a resumed run has fewer points left)."""
    if kind == "batch":
        total = batches * (1 - done)
    elif kind in ("mid-write", "written"):
        total = checkpoints * (1 - done)
    else:
        total = (batches + 2 * checkpoints) * (1 - done)
    k = max(1, min(math.ceil(fraction * total), int(total)))
    return f"{k}:{kind}" if kind else str(k)


@pytest.mark.parametrize(
    "case,chain",
    [
        # the fixed corners in the README's test command, the seeded points with `-m slow`
        pytest.param(case, chain, marks=[pytest.mark.slow] if i >= CORNERS else [])
        for i, (case, chain) in enumerate(KILLS)
    ],
    ids=[
        f"{i}-{case}-" + "+".join(f"{k or 'any'}@{f}" for k, f in chain)
        for i, (case, chain) in enumerate(KILLS)
    ],
)
def test_killed_and_rerun_gives_the_same_bytes(case, chain, tmp_path, snb, messy, reference):
    ref = reference(case)
    runner = Runner(case, tmp_path, _inputs(snb, messy))
    batches = _batches(snb)
    rng = random.Random(f"{case}{chain}")
    done = 0.0
    for kind, fraction in chain:
        kill = _kill_env(kind, fraction, batches, ref["checkpoints"], done)
        had = (runner.ckpt / FILE).exists()
        proc = runner.run(hashseed=2, kill=kill)
        assert proc.returncode == -signal.SIGKILL, (kill, proc.returncode, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert ("resuming from checkpoint" in proc.stderr) == had
        done = min(0.9, done + fraction * (1 - done))
    had = (runner.ckpt / FILE).exists()
    seed = rng.randrange(3, 2**32 - 1)
    proc = runner.run(hashseed=seed)
    assert proc.returncode == 0, proc.stderr
    assert ("resuming from checkpoint" in proc.stderr) == had
    out, rejects = runner.files()
    want_out, want_rejects = ref["files"]
    assert out == want_out, f"output differs after kills {chain} (resume PYTHONHASHSEED={seed})"
    assert rejects == want_rejects, f"rejects differ after kills {chain}"
    got, want = stats_of(proc.stderr), ref["stats"]
    for key in ("edges", "rows", "what", "skipped", "dropped", "unmatched"):
        assert got[key] == want[key], (key, got, want)
    assert not (runner.ckpt / (FILE + ".tmp")).exists()


def test_the_kill_cases_are_not_trivial(reference, messy):
    """The messy case rejects and drops lines, the others emit many rows: byte equality
    after a resume means something."""
    ref = reference("q4-messy")
    assert ref["stats"]["skipped"] == messy["bad"]
    assert ref["stats"]["dropped"] >= messy["dropped"]
    rejects = ref["files"][1].decode().splitlines()
    assert rejects[0] == "line,reason,text"
    assert len(rejects) == 1 + ref["stats"]["skipped"] + ref["stats"]["dropped"]
    for line in ref["files"][0].decode().splitlines():
        assert set(json.loads(line)) == {"src", "trg", "label", "ts", "exp"}
    assert ref["stats"]["rows"] > 500
    assert reference("q7-intervals")["checkpoints"] >= SNB_EDGES // EVERY


def test_a_prepared_directory_resumes_too(tmp_path, capsys):
    """--input DIR (sgq prepare's layout): killed, run again, the same bytes."""
    edges = social_edges(seed=21, n=600, deletions=0.05)
    prepared = prepared_dir(tmp_path / "prepared", edges)
    args = [
        "run",
        NOTIFICATION,
        "-i",
        prepared,
        "--emit",
        "deltas",
        "--no-progress",
        "--checkpoint-every",
        "50",
    ]
    ref = tmp_path / "ref.csv"
    assert sgq_main(args + ["-o", ref, "--checkpoint", tmp_path / "c1"], capsys)[0] == 0
    out = tmp_path / "out.csv"
    proc = sgq_proc(
        args + ["-o", out, "--checkpoint", tmp_path / "c2", "--kill-at", "40:batch"], hashseed=5
    )
    assert proc.returncode == -signal.SIGKILL
    proc = sgq_proc(args + ["-o", out, "--checkpoint", tmp_path / "c2"], hashseed=6)
    assert proc.returncode == 0 and "resuming from checkpoint" in proc.stderr, proc.stderr
    assert out.read_bytes() == ref.read_bytes()
    assert read_result(ref)[1] == api_rows(NOTIFICATION, edges, "deltas")


# ---- (c) refusals -----------------------------------------------------------------------


@pytest.fixture
def finished(tmp_path, capsys):
    """A small checkpointed run that finished: (tmp_path, args, output bytes)."""
    edges = social_edges(seed=4, n=300)
    path = write_edges(tmp_path / "e.csv", edges)
    args = [
        "run",
        NOTIFICATION,
        "-i",
        path,
        "-o",
        tmp_path / "out.csv",
        "--no-progress",
        "--checkpoint",
        tmp_path / "ckpt",
        "--checkpoint-every",
        "40",
    ]
    code, _, err = sgq_main(args, capsys)
    assert code == 0, err
    assert (tmp_path / "ckpt" / FILE).is_file()
    return tmp_path, args, (tmp_path / "out.csv").read_bytes()


def _refused(args, capsys, *pieces) -> str:
    code, _, err = sgq_main(args, capsys)
    # a usage problem: exit 2 (base/errors.py; exit 1 is for a check that ran and failed)
    assert code == 2, (code, err)
    return assert_one_line_error(err, *pieces)


def _set_arg(args, name, value):
    args = list(args)
    args[args.index(name) + 1] = value
    return args


def test_rerunning_a_finished_run_rewrites_the_same_output(finished, capsys):
    tmp_path, args, out = finished
    code, _, err = sgq_main(args, capsys)
    assert code == 0 and "resuming from checkpoint" in err
    assert (tmp_path / "out.csv").read_bytes() == out


@pytest.mark.parametrize(
    "change,pieces",
    [
        ("program", ["written for a different program text", "delete it"]),
        ("window", ["written for a different --window"]),
        ("emit", ["written for a different --emit"]),
        ("lateness", ["written for a different --max-lateness"]),
        ("path-operator", ["written for a different --path-operator"]),
        ("no-rewrite", ["written for a different --no-rewrite"]),
        ("garbage", ["is damaged"]),
        ("truncated", ["is damaged"]),
        ("not-json", ["is damaged"]),
        ("version", ["was written by sgq 0.0.0-other", f"this is sgq {sgq.__version__}"]),
        ("format", ["has format 99"]),
        ("state", ["cannot be loaded"]),
    ],
)
def test_a_checkpoint_that_does_not_fit_is_refused(finished, capsys, change, pieces):
    tmp_path, args, out = finished
    ckfile = tmp_path / "ckpt" / FILE
    blob = ckfile.read_bytes()
    if change == "program":
        other = tmp_path / "notification.dl"
        other.write_text(NOTIFICATION.read_text() + "// one more comment\n")
        args = list(args)
        args[1] = other
    elif change == "window":
        args = args + ["--window", "12h"]
    elif change == "emit":
        args = args + ["--emit", "deltas"]
    elif change == "lateness":
        args = args + ["--max-lateness", "10"]
    elif change == "path-operator":
        args = args + ["--path-operator", "spath"]
    elif change == "no-rewrite":
        args = args + ["--no-rewrite", "shared_chains"]
    elif change == "garbage":
        ckfile.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(4096)))
    elif change == "truncated":
        ckfile.write_bytes(blob[: len(blob) // 2])
    elif change == "not-json":
        ckfile.write_bytes(gzip.compress(b"{not json"))
    else:
        data = json.loads(gzip.decompress(blob))
        if change == "version":
            data["sgq"] = "0.0.0-other"
        elif change == "format":
            data["format"] = 99
        else:
            data["state"] = {"engine": ["o", "builtins.dict", {}]}
        ckfile.write_bytes(gzip.compress(json.dumps(data).encode()))
    damaged = ckfile.read_bytes()
    _refused(args, capsys, f"checkpoint '{ckfile}'", *pieces)
    # refused before touching anything
    assert (tmp_path / "out.csv").read_bytes() == out
    assert ckfile.read_bytes() == damaged


def test_checkpoints_need_an_input_file_and_an_output_file(finished, capsys):
    tmp_path, args, _ = finished
    _refused(_set_arg(args, "-i", "-"), capsys, "--checkpoint needs --input FILE")
    _refused(_set_arg(args, "-o", "-"), capsys, "--checkpoint needs --output FILE")
    proc = sgq_proc(_set_arg(args, "-i", "-"), stdin=b"a,b,follows,1\n")
    assert proc.returncode == 2
    assert_one_line_error(proc.stderr, "stdin cannot be read again")
    _refused(args + ["--paths"], capsys, "does not go with --paths")
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    _refused(_set_arg(args, "--checkpoint", a_file), capsys, "is not a directory")


def test_another_input_under_the_checkpoint_is_refused(tmp_path, capsys):
    """The input's consumed prefix is checked (a CRC of its edges): other first edges or a
    shorter input are refused; appended edges are fine; the right input still resumes."""
    edges = social_edges(seed=4, n=300)
    path = write_edges(tmp_path / "e.csv", edges)
    original = path.read_bytes()
    ref = tmp_path / "ref.csv"
    assert sgq_main(["run", NOTIFICATION, "-i", path, "-o", ref, "--no-progress"], capsys)[0] == 0
    args = [
        "run",
        NOTIFICATION,
        "-i",
        path,
        "-o",
        tmp_path / "out.csv",
        "--no-progress",
        "--checkpoint",
        tmp_path / "ckpt",
        "--checkpoint-every",
        "40",
    ]
    proc = sgq_proc(args + ["--kill-at", "4:written"])
    assert proc.returncode == -signal.SIGKILL
    data = json.loads(gzip.decompress((tmp_path / "ckpt" / FILE).read_bytes()))
    consumed = data["position"]["edges"]
    assert 100 < consumed < 300
    changed = list(edges)
    changed[0] = ("u1", "u2", "follows", changed[0][3], "+")
    assert changed[0] != edges[0]
    write_edges(path, changed)
    _refused(args, capsys, f"the input's first {consumed:,} edges differ")
    write_edges(path, edges[: consumed - 10])
    _refused(args, capsys, f"fewer than the {consumed:,} the checkpoint consumed")
    path.write_bytes(original)
    code, _, err = sgq_main(args, capsys)
    assert code == 0 and "resuming from checkpoint" in err, err
    assert multiset(read_result(tmp_path / "out.csv")[1]) == multiset(read_result(ref)[1])
    # more input appended after a finished run: resumed, the new edges processed
    more = social_edges(seed=4, n=400)
    assert more[:300] == edges
    write_edges(path, more)
    code, _, err = sgq_main(args, capsys)
    assert code == 0 and "resuming from checkpoint" in err, err
    assert stats_of(err)["edges"] == 400
    assert multiset(read_result(tmp_path / "out.csv")[1]) == multiset(
        api_rows(NOTIFICATION, more, "intervals")
    )


def test_a_missing_or_shorter_output_file_is_refused(finished, capsys):
    tmp_path, args, out = finished
    (tmp_path / "out.csv").unlink()
    _refused(args, capsys, "output file", "is missing, but the checkpoint says it had")
    (tmp_path / "out.csv").write_bytes(out[:10])
    _refused(args, capsys, "output file", "is shorter (10 bytes)")


# ---- (d) the file -----------------------------------------------------------------------


def test_the_checkpoint_is_gzip_json(finished):
    tmp_path, args, _ = finished
    raw = (tmp_path / "ckpt" / FILE).read_bytes()
    assert raw[:2] == b"\x1f\x8b"  # gzip
    data = json.loads(gzip.decompress(raw))  # JSON (no pickle)
    assert data["format"] == FORMAT
    assert data["sgq"] == sgq.__version__
    assert data["position"]["edges"] == 300
    assert data["settings"]["emit"] == "intervals"
    assert set(data["state"]) == {"engine"}  # the delta view, if any, is the engine's
    assert b"pickle" not in gzip.decompress(raw)
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == [FILE]  # no .tmp left


@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_an_empty_input_checkpoints_and_reruns(tmp_path, capsys, emit):
    """No edges: one checkpoint at the end; run again, the output is still just the header
    (written once)."""
    path = tmp_path / "e.csv"
    path.write_text("src,trg,label,ts\n")
    args = [
        "run",
        NOTIFICATION,
        "-i",
        path,
        "-o",
        tmp_path / "out.csv",
        "--emit",
        emit,
        "--no-progress",
        "--checkpoint",
        tmp_path / "ckpt",
    ]
    header = INTERVAL_HEADER if emit == "intervals" else DELTA_HEADER
    for _ in range(2):
        code, _, err = sgq_main(args, capsys)
        assert code == 0, err
        assert (tmp_path / "out.csv").read_text() == header + "\n"
        assert (tmp_path / "ckpt" / FILE).is_file()
    assert "resuming from checkpoint" in err
