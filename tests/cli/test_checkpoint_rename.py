"""A checkpoint is a contract, not a memory dump: one written by this build resumes in a
build whose private attributes are renamed (incremental/stateful.py, sgq/state_codec.py).

The renamed build is a copy of the installed package with attributes renamed throughout
their modules (the engine's input buffer and frontier, the Coalescer's coverage, the S-PATH
inverted index, the closure's vertex table); the run is killed after a checkpoint, resumed
by the renamed build, and must end with the bytes of an uninterrupted run.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import NOTIFICATION, sgq_main, sgq_proc, social_edges, write_edges

import sgq

# module of sgq -> attribute renamed in it (every occurrence, as a whole word)
RENAMES = {
    "sgq.incremental.engine": {"_seen": "_seen_after_rename", "_buffer": "_buffer_after_rename"},
    "sgq.incremental.state.coalescer": {"live": "_coverage_after_rename"},
    "sgq.incremental.state.delta_path": {"inv": "_roots_of_after_rename"},
    "sgq.incremental.state.product_nodes": {"vexp": "_vertex_exp_after_rename"},
}
SUBPACKAGES = ["commands", "generators", "benchmarks", "datalog", "sga", "incremental", "oracle"]


def renamed_build(root: Path) -> Path:
    """A copy of the installed sgq package under `root` with the attributes of RENAMES
    renamed; returns the directory to put on PYTHONPATH."""
    target = root / "sgq"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(Path(sgq.__file__).parent, target, ignore=ignore)
    for name in SUBPACKAGES:  # subpackages may live elsewhere in the source tree
        package = importlib.import_module(f"sgq.{name}")
        shutil.rmtree(target / name, ignore_errors=True)
        shutil.copytree(Path(package.__file__).parent, target / name, ignore=ignore)
    for module, renames in RENAMES.items():
        path = target.joinpath(*module.split(".")[1:]).with_suffix(".py")
        text = path.read_text(encoding="utf-8")
        for old, new in renames.items():
            text, n = re.subn(rf"\b{old}\b", new, text)
            assert n >= 3, (module, old, n)  # the slot, a write and a read at least
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_a_checkpoint_resumes_after_private_attributes_are_renamed(tmp_path, capsys, emit):
    edges = social_edges(seed=31, n=700, deletions=0.05)
    path = write_edges(tmp_path / "e.csv", edges)
    args = ["run", NOTIFICATION, "-i", path, "--emit", emit, "--no-progress"]
    whole = tmp_path / "whole.csv"  # checkpointed too: its interval rows are sorted per instant
    code, _, err = sgq_main(args + ["-o", whole, "--checkpoint", tmp_path / "whole-ckpt"], capsys)
    assert code == 0, err

    site = renamed_build(tmp_path / "renamed")
    where = subprocess.run(
        [sys.executable, "-c", "import sgq.incremental.engine as e; print(e.__file__)"],
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,  # not the source tree: `python -c` puts the working directory first
    )
    assert where.stdout.startswith(str(site)), where  # the renamed build is the one run

    out, ckpt = tmp_path / "out.csv", tmp_path / "ckpt"
    resumable = args + ["-o", out, "--checkpoint", ckpt, "--checkpoint-every", "100"]
    killed = sgq_proc(resumable + ["--kill-at", "3:written"], cwd=tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = sgq_proc(resumable, env={"PYTHONPATH": str(site)}, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming from checkpoint" in resumed.stderr, resumed.stderr
    assert out.read_bytes() == whole.read_bytes()
