"""The Δ-PATH index of S-PATH (thesis Appendix A, Defs 36-37).

A spanning tree `T_x` per root vertex `x`: its nodes are `(vertex, DFA state)` pairs reachable
from `(x, s0)`, each holding the interval of the path that expires last (`[ts, exp)`, coalescing
with max) and a parent pointer for the witness path. An inverted index maps `(vertex, state)`
to the roots of the trees holding it (ExpandableTrees, thesis line 18), and an exp-bucketed expiry index (state/expiry.py)
finds expired nodes directly (no ExpiryRAPQ re-derivation: a child never outlives its parent,
so expired nodes form whole subtrees).

A node is `[ts, exp, parent_key, wit]`; a root node is `[NEVER, FOREVER, None, None]`.
Nodes with `exp <= now` are treated as absent by the algorithm and dropped by `purge`.
An explicit deletion breaks the "child never outlives its parent through a still valid edge"
reasoning for the nodes below a deleted tree edge: PATH (operators/path.py) re-derives those
and ends the ones left without a derivation at `now` (they stay, invisible, until `purge`).
"""

from __future__ import annotations

from ..sgt import FOREVER, NEVER
from .expiry import ExpiryBuckets


class DeltaPath:
    __slots__ = ("trees", "inv", "heap", "count", "start")

    def __init__(self, start: int) -> None:
        self.trees: dict[str, dict[tuple, list]] = {}
        self.inv: dict[tuple, set] = {}
        self.heap = ExpiryBuckets()  # exp -> (root, v, q)
        self.count = 0  # non-root nodes
        self.start = start

    def tree(self, root: str) -> dict:
        """`T_root`, created with its root node if missing."""
        tree = self.trees.get(root)
        if tree is None:
            key = (root, self.start)
            tree = self.trees[root] = {key: [NEVER, FOREVER, None, None]}
            self.inv.setdefault(key, set()).add(root)
        return tree

    def purge(self, now: int) -> None:
        """Remove every node with `exp <= now`, and trees left with their root only."""
        trees, inv = self.trees, self.inv
        for root, v, q in self.heap.expired(now):
            tree = trees.get(root)
            if tree is None:
                continue
            key = (v, q)
            node = tree.get(key)
            if node is None or node[1] > now:
                continue
            del tree[key]
            self.count -= 1
            roots = inv[key]
            roots.discard(root)
            if not roots:
                del inv[key]
            if len(tree) == 1:
                del trees[root]
                rkey = (root, self.start)
                roots = inv[rkey]
                roots.discard(root)
                if not roots:
                    del inv[rkey]

    def path_to(self, root: str, key: tuple) -> tuple:
        """The witness edges from the root to `key`, following parent pointers."""
        tree = self.trees[root]
        parts = []
        steps = 0
        while key is not None and steps <= len(tree):
            node = tree.get(key)
            if node is None or node[2] is None:
                break
            parts.append(node[3] or ())
            key = node[2]
            steps += 1
        return tuple(e for part in reversed(parts) for e in part)

    def __len__(self) -> int:
        return self.count

    def _check(self, now: int | None = None) -> None:
        """Invariants: inverted index == tree membership; counts; non-empty intervals; a
        heap entry at every node's exp; a valid node's parent is in its tree and outlives it."""
        self.heap._check()
        heap_keys = {(r, v, q, e) for e, (r, v, q) in self.heap.pairs()}
        members: dict[tuple, set] = {}
        n = 0
        for root, tree in self.trees.items():
            rkey = (root, self.start)
            assert tree.get(rkey) == [NEVER, FOREVER, None, None], root
            assert len(tree) > 1 or now is None, root
            for key, node in tree.items():
                members.setdefault(key, set()).add(root)
                if key == rkey:
                    continue
                n += 1
                ts, exp, parent, _wit = node
                assert ts <= exp, (root, key, node)
                assert (root, key[0], key[1], exp) in heap_keys, (root, key, node)
                if now is not None and exp > now:
                    assert parent in tree, (root, key, parent)
                    assert tree[parent][1] >= exp, (root, key, node, tree[parent])
        assert n == self.count, (n, self.count)
        assert members == self.inv, "inverted index out of sync"
