"""The Δ-PATH index of S-PATH and the algorithms that change it (thesis Appendix A, Defs
36-37; deletions: thesis 4.3.2 Algorithm Delete).

A spanning tree `T_x` per root vertex `x`: its nodes are `(vertex, DFA state)` pairs reachable
from `(x, s0)`, each holding the interval of the path that expires last (`[ts, exp)`,
coalescing with max) and a parent pointer for the witness path. An inverted index maps
`(vertex, state)` to the roots of the trees holding it (ExpandableTrees, thesis line 18), and
an exp-bucketed expiry index (state/expiry.py) finds expired nodes directly (no ExpiryRAPQ
re-derivation: a child never outlives its parent, so expired nodes form whole subtrees). A
node has an item there at or before its exp: one when it is made, and `purge` moves the item
of a node that outlived it on to its exp (once per slide at most, where an item per
Propagate cost an append each and a skip each). An item is `(root, key, node)`: `purge` reads
the node itself, no lookup; a node it removes is marked (parent key `_GONE`), once `reconnect`
has added a second item to some node, so that another item of it is skipped.

A node is `[ts, exp, parent_key, wit]`; a root node is `[NEVER, FOREVER, None, None]`. Nodes
with `exp <= now` are treated as absent by the algorithm and dropped by `purge`. The window
graph is read from the input edge indexes (state/edge_index.py), one per letter of the DFA.

Insertion (`insert`, Expand / Propagate; an index edge whose ts is after `now` is not there
yet: a span of instants, incremental/runtime.py `run_span`, fills the indexes first): a new
sgt `(u, v)` with letter l, for each DFA move `s -l-> q`, opens `T_u` when `s = s0`, then
for every tree holding a valid `(u, s)` offers `(v, q)` the interval `[max ts, min exp)` of
the node and the sgt; a node that is new (or
expired) is Expanded, one whose exp grows is Propagated; both continue over the out-edges of
the letters leaving q (worklist, no recursion) until nothing improves. Each final-state node
that improved is reported to the caller (PATH coalesces it into its output).

Deletion (`below_tree_edges`, `reconnect`): an end record of `(u, v)` with letter l matters
only where it is a *tree edge* (Def 24): a valid node `(v, q)` whose parent is `(u, s)` with
`δ(s, l) = q` and whose exp the edge no longer covers. The subtrees below such edges are
invalidated (found by following out-edges whose child points back to its parent) and every
invalidated node is reconnected through the valid derivation with the largest exp: a
Dijkstra-style search with a max-heap, seeded by the valid in-edges from nodes outside the
invalidated set and growing through settled nodes. A node keeps its ts (it stays valid without
a break); one left without a valid derivation ends at `now` (it stays, invisible, until
`purge`). An explicit deletion breaks the "child never outlives its parent through a still
valid edge" reasoning only for the nodes below a deleted tree edge; those are exactly the
ones re-derived.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Collection

from ...base.suffix_languages import shortcut
from ..sgt import FOREVER, NEVER
from ..stateful import restore_into, state_of
from .expiry import ExpiryBuckets

_GONE = ("removed",)  # the parent key of a node `purge` removed (its other items: skipped)


class DeltaPath:
    """The spanning trees of one PATH: `trees[root][(v, q)]` -> node, `inv[(v, q)]` -> roots.

    `delta[q]` maps a letter to the next state, `back[q]` lists `(letter, s)` with
    `δ(s, letter) = q`, and `window[letter]` is the EdgeIndex of that letter's input."""

    __slots__ = (
        "trees",
        "inv",
        "heap",
        "count",
        "start",
        "delta",
        "back",
        "finals",
        "window",
        "forward",
        "several_finals",
        "start_is_root",
        "simple",
        "twice",
    )

    STATE_VERSION = 1

    def __init__(self, dfa, window: dict, simple: bool = False) -> None:
        self.simple = simple  # witnesses cut to simple paths (a conflict-free simple PATH)
        self.trees: dict[str, dict[tuple, list]] = {}
        self.inv: dict[tuple, set] = {}
        self.heap = ExpiryBuckets()  # exp -> (root, (v, q), node)
        self.count = 0  # non-root nodes
        #: some node may have two expiry items (`reconnect` adds one): `purge` marks what it
        #: removes (parent key `_GONE`) only then, a store per node saved on insert-only runs
        self.twice = False
        self.start: int = dfa.start
        self.delta: list[dict] = dfa.delta
        self.finals: frozenset = frozenset(dfa.finals)
        self.several_finals = len(self.finals) > 1
        back: list[list] = [[] for _ in dfa.delta]
        for s, moves in enumerate(dfa.delta):
            for letter, q in moves.items():
                back[q].append((letter, s))
        self.back = back
        #: no move leads back to the start state: `(x, s0)` is in `T_x` only, as its root
        self.start_is_root = not back[dfa.start]
        self.window = window
        #: per state q, `(δ(q, letter), EdgeIndex of letter)` for each letter leaving q
        self.forward = [
            tuple((q2, window[letter]) for letter, q2 in moves.items()) for moves in dfa.delta
        ]
        for index in window.values():
            index.order_by_exp()  # Propagate reads only the edges that outlive a node's old exp

    def tree(self, root: str) -> dict:
        """`T_root`, created with its root node if missing."""
        tree = self.trees.get(root)
        if tree is None:
            key = (root, self.start)
            tree = self.trees[root] = {key: [NEVER, FOREVER, None, None]}
            self.inv.setdefault(key, set()).add(root)
        return tree

    # ---- insertion: Expand / Propagate
    def insert(
        self,
        u: str,
        v: str,
        moves: list[tuple[int, int]],
        ts: int,
        exp: int,
        wit: tuple | None,
        now: int,
        reached: list,
    ) -> None:
        """Offer the sgt `(u, v)` valid on `[ts, exp)`, whose letter moves the DFA by `moves`
        (`[(s, q)]`), to every tree holding a valid `(u, s)`; append `(root, v, key, ts, exp,
        before)` to `reached` for each final-state node whose interval grew, `before` its exp
        until then (None for a node new to the tree)."""
        start, trees, inv = self.start, self.trees, self.inv
        for s, q in moves:
            if s == start:
                tree = trees.get(u)
                if tree is None:
                    tree = self.tree(u)
                if self.start_is_root:  # (u, s0) is T_u's root and in no other tree
                    key = (v, q)
                    child = tree.get(key)
                    if child is None or child[1] < exp or child[1] <= now:
                        self._relax(u, tree, (u, s), v, q, ts, exp, wit, now, reached)
                    continue
            parent = (u, s)
            roots = inv.get(parent)
            if not roots:
                continue
            key = (v, q)
            for x in list(roots):
                tree = trees[x]
                node = tree[parent]
                n_exp = node[1]
                if n_exp <= now:
                    continue
                c_exp = exp if exp < n_exp else n_exp
                child = tree.get(key)
                if child is not None and child[1] >= c_exp and child[1] > now:
                    continue  # (most offers: the tree already holds (v, q) as long)
                n_ts = node[0]
                c_ts = ts if ts > n_ts else n_ts
                self._relax(x, tree, parent, v, q, c_ts, c_exp, wit, now, reached)

    def _relax(self, x, tree, parent, v, q, ts, exp, wit, now, reached) -> None:
        """Expand / Propagate from one offer, until nothing improves."""
        heap, inv, forward = self.heap, self.inv, self.forward
        buckets, finals, made = heap.buckets, self.finals, 0
        bucket_exp = bucket = None  # the expiry list of the last node's exp
        work = [(parent, v, q, ts, exp, wit)]
        while work:
            parent, v, q, ts, exp, wit = work.pop()
            key = (v, q)
            floor = NEVER  # the node's exp before a Propagate
            node = tree.get(key)
            if node is None:
                before = None
                node = tree[key] = [ts, exp, parent, wit]
                roots = inv.get(key)
                if roots is None:
                    inv[key] = {x}
                else:
                    roots.add(x)
                made += 1
                if exp != bucket_exp:  # an offer's nodes mostly share its exp: its list once
                    bucket_exp = exp
                    bucket = buckets.get(exp)  # (most exist: no call)
                    if bucket is None:
                        bucket = heap.bucket(exp)
                bucket.append((x, key, node))
            elif node[1] <= now:  # expired: a fresh derivation (its item comes up: `purge`)
                before = node[1]
                node[0], node[1], node[2], node[3] = ts, exp, parent, wit
            elif exp > node[1]:  # Propagate: a later-expiring path (its item: as above)
                before = floor = node[1]
                if ts < node[0]:
                    node[0] = ts
                node[1], node[2], node[3] = exp, parent, wit
            else:
                continue
            n_ts, n_exp = node[0], node[1]
            if q in finals:
                reached.append((x, v, key, n_ts, n_exp, before))
            for q2, index in forward[q]:
                if not (row := index.by_src.get(v)):
                    continue
                ordered = floor > now and index.ordered  # a Propagate over a row in exp order:
                stop = floor if ordered else now  # read from its end, up to the first edge
                base = len(work) if ordered else 0  # that gave its child its old exp already
                for w, e in reversed(row.items()) if ordered else row.items():
                    if (e_exp := e.exp) <= stop:
                        if ordered:
                            break
                        continue
                    if (e_ts := e.ts) > now:  # a later instant's edge (a span, runtime.run_span)
                        continue
                    c_exp = n_exp if n_exp < e_exp else e_exp
                    child = tree.get((w, q2))
                    if child is not None and child[1] > now and child[1] >= c_exp:
                        continue
                    work.append((key, w, q2, n_ts if n_ts > e_ts else e_ts, c_exp, e.wit))
                if ordered and len(work) > base + 1:  # pushed back in the row's order, as
                    work[base:] = work[base:][::-1]  # a full read pushes them (latest on top)
        self.count += made

    # ---- deletion: invalidate and reconnect
    def below_tree_edges(
        self,
        u: str,
        v: str,
        moves: list[tuple[int, int]],
        exp: int,
        now: int,
        renew: bool,
        below: dict,
    ) -> None:
        """For the end record of `(u, v)` (now ending at `exp`) with DFA moves `moves`: add to
        `below[root]` every valid node `(v, q)` whose tree edge it is and whose exp it no
        longer covers (`renew`: every such tree edge, to renew witnesses)."""
        trees, inv = self.trees, self.inv
        for s, q in moves:
            roots = inv.get((v, q))
            if not roots:
                continue
            parent = (u, s)
            for x in roots:
                _ts, n_exp, n_parent, _wit = trees[x][(v, q)]
                if n_parent == parent and n_exp > now and (n_exp > exp or renew):
                    below.setdefault(x, []).append((v, q))

    def reconnect(self, x: str, starts: list[tuple], now: int) -> list[tuple]:
        """Invalidate the subtrees of `starts` in `T_x` and re-derive each of their nodes with
        its best valid derivation; return the invalidated node keys."""
        tree = self.trees[x]
        self.twice = True
        invalid = self._subtrees(tree, starts, now)
        best, heap = self._seeds(tree, invalid, now)
        self._settle(best, heap, invalid, now)
        heap_add = self.heap.add
        for key in invalid:
            node = tree[key]
            b = best.get(key)
            if b is None:
                node[1] = now  # no valid derivation left: ends now
                heap_add(now, (x, key, node))
            else:
                node[1], node[2], node[3] = b
                heap_add(b[0], (x, key, node))
        return list(invalid)

    def _subtrees(self, tree: dict, starts: list[tuple], now: int) -> dict:
        """The valid nodes below `starts` (themselves included), following parent pointers
        backwards over the window's out-edges."""
        delta, window = self.delta, self.window
        invalid: dict = {}
        todo = list(starts)
        while todo:
            key = todo.pop()
            if key in invalid:
                continue
            invalid[key] = None
            v, q = key
            for letter, q2 in delta[q].items():
                row = window[letter].by_src.get(v)
                if row:
                    for w in row:
                        child = tree.get((w, q2))
                        if child is not None and child[2] == key and child[1] > now:
                            todo.append((w, q2))
        return invalid

    def _seeds(self, tree: dict, invalid: dict, now: int) -> tuple[dict, list]:
        """Per invalidated node, its best valid in-edge from a node outside `invalid`:
        `best[key] = [exp, parent, wit]`, and the max-heap of them."""
        back, window = self.back, self.window
        best: dict = {}
        heap: list = []
        for key in invalid:
            v, q = key
            top = None
            for letter, s in back[q]:
                col = window[letter].by_targets().get(v)
                if not col:
                    continue
                for u, e in col.items():
                    parent = (u, s)
                    if parent in invalid:
                        continue
                    p = tree.get(parent)
                    if p is None:
                        continue
                    c = p[1] if p[1] < e.exp else e.exp
                    if c > now and (top is None or c > top[0]):
                        top = [c, parent, e.wit]
            if top is not None:
                best[key] = top
                heapq.heappush(heap, (-top[0], key))
        return best, heap

    def _settle(self, best: dict, heap: list, invalid: dict, now: int) -> None:
        """Dijkstra with a max-heap on the bottleneck exp: grow the best derivations of the
        invalidated nodes through the nodes settled so far."""
        delta, window = self.delta, self.window
        settled: set = set()
        while heap:
            c, key = heapq.heappop(heap)
            c = -c
            if key in settled or best[key][0] != c:
                continue
            settled.add(key)
            v, q = key
            for letter, q2 in delta[q].items():
                row = window[letter].by_src.get(v)
                if not row:
                    continue
                for w, e in row.items():
                    child = (w, q2)
                    if child not in invalid or child in settled:
                        continue
                    c2 = c if c < e.exp else e.exp
                    if c2 <= now:
                        continue
                    b = best.get(child)
                    if b is None or c2 > b[0]:
                        best[child] = [c2, key, e.wit]
                        heapq.heappush(heap, (-c2, child))

    # ---- reading
    def other_finals_until(self, x: str, v: str, skip: Collection[int] = ()) -> int:
        """The largest exp of a final-state node of `v` in `T_x` whose state is not in
        `skip` (NEVER when there is none): until when the result `(x, v)` holds without
        those nodes."""
        best = NEVER
        tree = self.trees.get(x)
        if tree is not None:
            for f in self.finals:
                if f not in skip:
                    node = tree.get((v, f))
                    if node is not None and node[1] > best:
                        best = node[1]
        return best

    def results_until(self, now: int) -> dict:
        """`{(root, v): exp}` of every result the trees hold after `now`: per root and vertex
        the largest exp of its final-state nodes."""
        out: dict = {}
        finals = self.finals
        for root, tree in self.trees.items():
            for (v, q), node in tree.items():
                if q in finals and node[2] is not None and node[1] > now:
                    key = (root, v)
                    if node[1] > out.get(key, now):
                        out[key] = node[1]
        return out

    def best_final(self, x: str, v: str, now: int, paths: bool) -> tuple[int, tuple | None] | None:
        """`(exp, witness)` of the final-state node of `v` in `T_x` that expires last (the
        witness only with `paths`), or None when none is valid after `now`."""
        top = self.top_final(x, v, now)
        if top is None:
            return None
        best, key = top
        return best, (self.path_to(x, key) if paths else None)

    def top_final(self, x: str, v: str, now: int) -> tuple[int, tuple] | None:
        """`(exp, key)` of the final-state node of `v` in `T_x` that expires last, or None when
        none is valid after `now`."""
        tree = self.trees.get(x)
        if tree is None:
            return None
        best, key = now, None
        for q in self.finals:
            node = tree.get((v, q))
            if node is not None and node[1] > best and node[2] is not None:
                best, key = node[1], (v, q)
        return None if key is None else (best, key)

    def final_vertices(self, x: str) -> set:
        """The vertices other than `x` that `T_x` holds in a final state (valid or not)."""
        tree = self.trees.get(x)
        finals = self.finals
        return set() if tree is None else {v for v, q in tree if q in finals and v != x}

    def nodes(self, x: str) -> Collection[tuple]:
        """The product nodes of `T_x` (valid or not): those reachable from `(x, s0)`."""
        tree = self.trees.get(x)
        return () if tree is None else tree.keys()

    def path_to(self, root: str, key: tuple) -> tuple:
        """The witness edges from the root to `key`, following parent pointers; for a simple
        PATH (conflict-free: sga/rewrite/relax_simple_paths.py) the walk cut to a simple path
        (base/suffix_languages.py `shortcut`)."""
        tree = self.trees[root]
        parts = []
        vertices = []
        steps = 0
        while key is not None and steps <= len(tree):
            node = tree.get(key)
            if node is None or node[2] is None:
                break
            parts.append(node[3] or ())
            vertices.append(key[0])
            key = node[2]
            steps += 1
        parts.reverse()
        if self.simple:
            vertices.append(root)
            vertices.reverse()
            parts = shortcut(vertices, parts)
        return tuple(e for part in parts for e in part)

    def purge(self, now: int, ended: dict | None = None) -> None:
        """Remove every node with `exp <= now`, and trees left with their root only. With
        `ended`, also report the results that end: `ended[(root, v)] = exp` for each root and
        vertex whose last final-state node is removed, at the largest exp removed; with one
        final state (`several_finals` false), by exp and root instead, `ended[exp][root] =
        [v, ...]` (a result's one final node: each removed one ends its own result)."""
        if not self.heap.any_by(now):
            return
        later = self._remove(self.heap.expired(now), now, ended)
        bucket = self.heap.bucket
        for exp, items in later.items():
            bucket(exp).extend(items)
        if ended and self.several_finals:  # with one final state, a removed node was the last
            for root, v in list(ended):
                if self.other_finals_until(root, v) > now:
                    del ended[(root, v)]  # another final node still holds it

    def _remove(self, items: list, now: int, ended: dict | None) -> dict:
        """Remove the nodes of the expiry `items` that end at or before `now`, and the trees
        left with their root only, reporting into `ended` the final-state nodes removed (as
        `purge` says). Returns `{exp: items}` of the nodes that outlived their items: to be
        moved on to their exp. O(1) per item."""
        trees, inv = self.trees, self.inv
        finals = self.finals
        several = self.several_finals  # else a result's one final node: its end is that node's
        by_exp = ended is not None and not several
        by_key = ended is not None and several
        twice = self.twice
        last = tree = None  # items come in runs of one root (one relaxation's nodes)
        last_exp = by_root = got = None  # (by_exp: the ended lists of the run's root and exp)
        skipped = 0  # items not of a node removed here
        later: dict = defaultdict(list)  # exp -> items of nodes that outlived them
        for item in items:
            root, key, node = item
            exp = node[1]
            if exp > now:
                later[exp].append(item)
                skipped += 1
                continue
            if twice:
                if node[2] is _GONE:
                    skipped += 1
                    continue  # (a second item of a node removed already: `reconnect`)
                node[2] = _GONE
            if root != last:
                last, tree = root, trees[root]
                got = None
            del tree[key]
            if key[1] in finals:
                if by_exp:
                    if exp != last_exp:  # (a bucket's items mostly share their exp)
                        last_exp, got = exp, None
                        by_root = ended.get(exp)
                        if by_root is None:
                            by_root = ended[exp] = {}
                    if got is None:
                        got = by_root.get(root)
                        if got is None:
                            got = by_root[root] = []
                    got.append(key[0])
                elif by_key:
                    rkey = (root, key[0])
                    if exp > ended.get(rkey, NEVER):
                        ended[rkey] = exp
            roots = inv[key]
            roots.discard(root)
            if not roots:
                del inv[key]
            if len(tree) == 1:
                self._drop_tree(root)
                last = None
        self.count -= len(items) - skipped
        return later

    def _drop_tree(self, root: str) -> None:
        """Remove `T_root`, left with its root node only, and that node's inverted-index
        entry."""
        del self.trees[root]
        rkey = (root, self.start)
        roots = self.inv[rkey]
        roots.discard(root)
        if not roots:
            del self.inv[rkey]

    def drop_root(self, root: str) -> None:
        """Remove `T_root` whole, valid nodes too (a root no longer asked for: a bound PATH,
        operators/bound_path.py); its nodes' expiry items are skipped when they come up.
        O(nodes of the tree)."""
        tree = self.trees.pop(root, None)
        if tree is None:
            return
        self.twice = True  # (its items stay in the expiry index: marked, as `purge` marks)
        inv = self.inv
        for key, node in tree.items():
            roots = inv[key]
            roots.discard(root)
            if not roots:
                del inv[key]
            node[2] = _GONE
        self.count -= len(tree) - 1

    def expires_by(self, now: int) -> bool:
        """Whether some node's exp is at or before `now` (`purge(now)` has work)."""
        return self.heap.any_by(now)

    def __len__(self) -> int:
        return self.count

    def state(self) -> dict:
        """The checkpoint contract (incremental/stateful.py): the trees (node: `[ts, exp,
        parent key, witness]`) and the expiry index, its items as `(root, v, q)` (a node is
        found again by them); the inverted index is rebuilt."""
        saved = ExpiryBuckets()
        saved.instants = list(self.heap.instants)
        saved.buckets = {
            exp: [(root, key[0], key[1]) for root, key, node in items if node[2] is not _GONE]
            for exp, items in self.heap.buckets.items()
        }
        return {"trees": self.trees, "expiry": state_of(saved)}

    def restore(self, state: dict) -> None:
        self.trees = {
            root: {key: list(node) for key, node in tree.items()}
            for root, tree in state["trees"].items()
        }
        inv: dict = {}
        count = 0
        for root, tree in self.trees.items():
            for key in tree:
                inv.setdefault(key, set()).add(root)
            count += len(tree) - 1
        self.inv = inv
        self.count = count
        saved = ExpiryBuckets()
        restore_into(saved, state["expiry"])
        heap = self.heap = ExpiryBuckets()
        held = 0
        for exp, items in saved.buckets.items():
            for root, v, q in items:
                key = (v, q)
                node = self.trees.get(root, {}).get(key)
                if node is not None:  # (else an item of a node removed since)
                    heap.add(exp, (root, key, node))
                    held += 1
        self.twice = held > count  # (more items than nodes: some node has two)

    def _check(self, now: int | None = None) -> None:
        """Invariants: inverted index == tree membership; counts; non-empty intervals; a
        heap entry at or before every node's exp; a valid node's parent is in its tree and
        outlives it."""
        self.heap._check()
        first: dict = {}  # the earliest expiry item per node
        for e, (root, key, node) in self.heap.pairs():
            if node[2] is _GONE:
                continue
            assert self.trees[root][key] is node, (root, key)
            if e < first.get((root, key), FOREVER):
                first[(root, key)] = e
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
                assert first.get((root, key), FOREVER) <= exp, (root, key, node)
                if now is not None and exp > now:
                    assert parent in tree, (root, key, parent)
                    assert tree[parent][1] >= exp, (root, key, node, tree[parent])
        assert n == self.count, (n, self.count)
        assert members == self.inv, "inverted index out of sync"
