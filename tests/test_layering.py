"""The packages' layers, bottom to top: `base`, `datalog`, `sga`, `incremental`, then the
Spark engine and the oracle, then the `sgq` package itself (command line, library API, input
and output; its `commands`, `generators` and the `benchmarks` sit there too). A module imports
only from its own layer or those below, lazy imports included, so the bottom can be read, tested
and reused without the top (base/__init__.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: folder -> (package, layer)
FOLDERS = {
    "base": ("sgq.base", 0),
    "datalog": ("sgq.datalog", 1),
    "sga": ("sgq.sga", 2),
    "incremental": ("sgq.incremental", 3),
    "spark_engine": ("sgq.spark_engine", 4),
    "oracle": ("sgq.oracle", 4),
    "sgq": ("sgq", 5),
    "benchmarks": ("sgq.benchmarks", 5),
}

#: the oracle checks the engine: its comparison reaches the top's library API on purpose
#: (oracle/compare.py), and it starts Spark the way the command line does
ALLOWED_UP = {
    ("oracle/compare.py", "sgq.api"),
    ("oracle/session.py", "sgq.spark_session"),
}


def _layer_of(module: str) -> tuple[str, int]:
    parts = module.split(".")
    if parts[0] != "sgq":
        return module, -1
    for _folder, (package, layer) in FOLDERS.items():
        if package != "sgq" and (module == package or module.startswith(package + ".")):
            return package, layer
    return "sgq", 5


def _imports(path: Path, package: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = package.split(".")
    if path.name != "__init__.py":
        pass
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append(target)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [name for name in found if name == "sgq" or name.startswith("sgq.")]


def _modules():
    for folder, (package, layer) in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            sub = path.relative_to(ROOT / folder).parent.parts
            yield path, ".".join((package, *sub)), layer


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_imports_go_down(folder):
    wrong = []
    for path, package, layer in _modules():
        if path.relative_to(ROOT).parts[0] != folder:
            continue
        rel = str(path.relative_to(ROOT))
        for target in _imports(path, package):
            target_package, target_layer = _layer_of(target)
            if (rel, target) in ALLOWED_UP:
                continue
            same_level_other = target_layer == layer and target_package != _layer_of(package)[0]
            if target_layer > layer or (same_level_other and layer < 5):
                wrong.append(f"{rel} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_rewrite_names_are_the_passes():
    from sgq.base.options import REWRITE_NAMES
    from sgq.sga.rewrite.pipeline import REWRITES

    assert tuple(REWRITES) == REWRITE_NAMES
