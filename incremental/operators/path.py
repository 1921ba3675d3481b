"""PATH by S-PATH: regular path queries over interval-annotated streams (thesis Def 34, 5.4
and Appendix A, with the erratum fixed: ExpandableTrees takes trees whose `(u, s)` is still
valid).

The regex becomes a minimal DFA (incremental/dfa.py). The Δ-PATH index (state/delta_path.py)
keeps one spanning tree per root vertex; per `(root, vertex, state)` the path that expires
last. A new sgt `(u, v)` with letter l, for each DFA move `s -l-> q`: opens `T_u` when
`s = s0`, then for every tree holding a valid `(u, s)` offers `(v, q)` the interval
`[max ts, min exp)` of the node and the sgt; a node that is new (or expired) is Expanded, one
whose exp grows is Propagated; both continue over the out-edges of the letters leaving q
(worklist, no recursion) until nothing improves. A final-state node yields `(root, v)` on the
node's interval; re-emitted only when its coverage widens (coalescing).

Intervals: a path is valid on the intersection of its edges' intervals; a node keeps the max
exp over paths (and the min ts while it stays valid), so expiry needs no re-derivation for
append-only input: when a node expires no other path to it remains. Inputs may be derived
streams (PATTERN output) with arbitrary intervals: only `ts <= now < exp` is assumed. ε-pairs
of a nullable regex come from the `domain` port (VERTICES). Cost per new sgt: O(trees holding
(u, s) × nodes improved × their out-degree).

Deletions (`retract`, thesis 4.3.2 Algorithm Delete with S-PATH's max-expiry coalescing): an end
record of `(u, v)` with letter l matters only where it is a *tree edge* (Def 24): a valid node
`(v, q)` of `T_x` whose parent is `(u, s)` with `δ(s, l) = q` and whose exp the edge no longer
covers; the inverted index finds those trees directly. Deleting a non-tree edge only changes
the window graph (the shared index). In each such tree the subtrees below the tree edges are
invalidated (found by following out-edges whose child points back to its parent) and every
invalidated node is reconnected through the valid derivation with the largest exp: a
Dijkstra-style search with a max-heap, seeded by the valid in-edges from nodes outside the
invalidated set and growing through settled nodes (as in LM-SRPQ's S-PATH). A node keeps its
ts (it stays valid without a break); one left without a valid derivation ends at `now`. Each
final-state node that changed re-reads its output key `(x, v)`: the best final node, or the
ε-pair from the domain index; an end record follows when that ends earlier than emitted.
Cost per end record: O(trees holding (v, q)) plus O(invalidated nodes × their in- and
out-degree × log) in the trees where it is a tree edge.
"""

from __future__ import annotations

import heapq

from ...sga.algebra import regex_labels
from ..dfa import compile_regex
from ..state.coalescer import Coalescer
from ..state.delta_path import DeltaPath
from .base import PhysicalOperator


class PathOp(PhysicalOperator):
    __slots__ = (
        "dfa",
        "letters",
        "index_of_letter",
        "state",
        "out",
        "paths",
        "has_domain",
        "back",
        "domain",
    )

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.dfa, self.letters = path_automaton(node)
        self.index_of_letter = {l: ctx.index_of(inp) for l, inp in zip(self.letters, node.inputs)}
        self.state = DeltaPath(self.dfa.start)
        self.out = Coalescer()
        self.paths = ctx.paths
        self.has_domain = node.domain is not None
        self.domain = ctx.index_of(node.domain) if self.has_domain and self.dfa.nullable else None
        back: list[list] = [[] for _ in self.dfa.delta]  # q -> [(letter, s)] with δ(s, letter) = q
        for s, moves in enumerate(self.dfa.delta):
            for letter, q in moves.items():
                back[q].append((letter, s))
        self.back = back

    def process(self, batches, now):
        result: list = []
        dfa = self.dfa
        state = self.state
        nletters = len(self.letters)
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                self._epsilon(batch, now, result)
                continue
            moves = dfa.by_letter.get(self.letters[port])
            if not moves:
                continue
            start = dfa.start
            for u, v, ts, exp, wit in batch:
                if exp <= now:
                    continue
                for s, q in moves:
                    if s == start:
                        state.tree(u)
                    roots = state.inv.get((u, s))
                    if not roots:
                        continue
                    for x in list(roots):
                        tree = state.trees[x]
                        node = tree[(u, s)]
                        n_exp = node[1]
                        if n_exp <= now:
                            continue
                        n_ts = node[0]
                        self._relax(
                            x,
                            tree,
                            (u, s),
                            v,
                            q,
                            ts if ts > n_ts else n_ts,
                            exp if exp < n_exp else n_exp,
                            wit,
                            now,
                            result,
                        )
        return result

    def _epsilon(self, batch, now, result) -> None:
        if self.dfa.nullable:
            epsilon_pairs(self.out, batch, now, result, () if self.paths else None)

    def _relax(self, x, tree, parent, v, q, ts, exp, wit, now, result) -> None:
        """Expand / Propagate (thesis Appendix A) from one offer, until nothing improves."""
        state = self.state
        heap_add, inv = state.heap.add, state.inv
        delta, finals = self.dfa.delta, self.dfa.finals
        index_of_letter = self.index_of_letter
        admit = self.out.admit
        paths = self.paths
        work = [(parent, v, q, ts, exp, wit)]
        while work:
            parent, v, q, ts, exp, wit = work.pop()
            key = (v, q)
            node = tree.get(key)
            if node is None:
                node = tree[key] = [ts, exp, parent, wit]
                roots = inv.get(key)
                if roots is None:
                    inv[key] = {x}
                else:
                    roots.add(x)
                state.count += 1
            elif node[1] <= now:  # expired: a fresh derivation
                node[0], node[1], node[2], node[3] = ts, exp, parent, wit
            elif exp > node[1]:  # Propagate: a later-expiring path
                if ts < node[0]:
                    node[0] = ts
                node[1], node[2], node[3] = exp, parent, wit
            else:
                continue
            heap_add(exp, (x, v, q))
            n_ts, n_exp = node[0], node[1]
            if q in finals:
                got = admit((x, v), n_ts, n_exp, now)
                if got is not None:
                    result.append((x, v, got[0], got[1], state.path_to(x, key) if paths else None))
            for letter, q2 in delta[q].items():
                row = index_of_letter[letter].by_src.get(v)
                if not row:
                    continue
                for w, e in row.items():
                    e_exp = e[1]
                    if e_exp <= now:
                        continue
                    c_exp = n_exp if n_exp < e_exp else e_exp
                    child = tree.get((w, q2))
                    if child is not None and child[1] > now and child[1] >= c_exp:
                        continue
                    e_ts = e[0]
                    work.append((key, w, q2, n_ts if n_ts > e_ts else e_ts, c_exp, e[2]))

    def retract(self, batches, now):
        state = self.state
        trees, inv = state.trees, state.inv
        nletters = len(self.letters)
        paths = self.paths
        below: dict = {}  # root -> [child nodes of deleted tree edges]
        keys: dict = {}  # output keys to re-read
        for port, batch in enumerate(batches):
            if not batch:
                continue
            if port == nletters:
                for v, _v, _ts, _exp, _wit in batch:
                    keys[(v, v)] = None
                continue
            moves = self.dfa.by_letter.get(self.letters[port], ())
            for u, v, _ts, exp, _wit in batch:
                for s, q in moves:
                    roots = inv.get((v, q))
                    if not roots:
                        continue
                    parent = (u, s)
                    for x in roots:
                        node = trees[x][(v, q)]
                        if node[2] == parent and node[1] > now and (node[1] > exp or paths):
                            below.setdefault(x, []).append((v, q))
        finals = self.dfa.finals
        for x, starts in below.items():
            for v, q in self._reconnect(x, starts, now):
                if q in finals:
                    keys[(x, v)] = None
        return self._reread(keys, now)

    def _reconnect(self, x, starts, now) -> list:
        """Invalidate the subtrees of `starts` in `T_x` and re-derive each of their nodes with
        its best valid derivation; return the invalidated node keys."""
        state = self.state
        tree = state.trees[x]
        delta, back, index_of_letter = self.dfa.delta, self.back, self.index_of_letter
        invalid: dict = {}
        todo = list(starts)
        while todo:
            key = todo.pop()
            if key in invalid:
                continue
            invalid[key] = None
            v, q = key
            for letter, q2 in delta[q].items():
                row = index_of_letter[letter].by_src.get(v)
                if row:
                    for w in row:
                        child = tree.get((w, q2))
                        if child is not None and child[2] == key and child[1] > now:
                            todo.append((w, q2))
        best: dict = {}  # key -> [exp, parent, wit] of the best derivation found
        heap: list = []
        for key in invalid:
            v, q = key
            top = None
            for letter, s in back[q]:
                col = index_of_letter[letter].by_trg.get(v)
                if not col:
                    continue
                for u, e in col.items():
                    parent = (u, s)
                    if parent in invalid:
                        continue
                    p = tree.get(parent)
                    if p is None:
                        continue
                    c = p[1] if p[1] < e[1] else e[1]
                    if c > now and (top is None or c > top[0]):
                        top = [c, parent, e[2]]
            if top is not None:
                best[key] = top
                heapq.heappush(heap, (-top[0], key))
        settled: set = set()
        while heap:
            c, key = heapq.heappop(heap)
            c = -c
            if key in settled or best[key][0] != c:
                continue
            settled.add(key)
            v, q = key
            for letter, q2 in delta[q].items():
                row = index_of_letter[letter].by_src.get(v)
                if not row:
                    continue
                for w, e in row.items():
                    child = (w, q2)
                    if child not in invalid or child in settled:
                        continue
                    c2 = c if c < e[1] else e[1]
                    if c2 <= now:
                        continue
                    b = best.get(child)
                    if b is None or c2 > b[0]:
                        best[child] = [c2, key, e[2]]
                        heapq.heappush(heap, (-c2, child))
        heap_add = state.heap.add
        for key in invalid:
            node = tree[key]
            b = best.get(key)
            if b is None:
                node[1] = now  # no valid derivation left: ends now
                heap_add(now, (x, key[0], key[1]))
            else:
                node[1], node[2], node[3] = b
                heap_add(b[0], (x, key[0], key[1]))
        return list(invalid)

    def _reread(self, keys, now) -> list:
        """End records for the output keys whose best derivation now ends earlier."""
        trees, finals, paths, domain = self.state.trees, self.dfa.finals, self.paths, self.domain
        cut = self.out.cut
        result = []
        for key in keys:
            x, v = key
            best, wit = now, None
            if domain is not None and x == v:
                entry = domain.get(v, v)
                if entry is not None and entry[1] > best:
                    best, wit = entry[1], ()
            tree = trees.get(x)
            if tree is not None:
                for q in finals:
                    node = tree.get((v, q))
                    if node is not None and node[1] > best and node[2] is not None:
                        best = node[1]
                        wit = self.state.path_to(x, (v, q)) if paths else None
            got = cut(key, best, now, paths)
            if got is not None:
                result.append((x, v, got[0], got[1], wit if paths else None))
        return result

    def purge(self, now):
        self.state.purge(now)
        self.out.purge(now)

    def size(self):
        return len(self.state) + len(self.out)

    def _check(self):
        self.state._check()
        self.out._check()


def path_automaton(node) -> tuple:
    """`(minimal DFA, letters)` of a PATH node; its inputs come one per letter, in order."""
    letters = regex_labels(node.regex)
    if len(letters) != len(node.inputs):
        raise ValueError(f"PATH {node.label}: {len(node.inputs)} inputs for letters {letters}")
    return compile_regex(node.regex), letters


def epsilon_pairs(out, batch, now, result, wit) -> None:
    """(v, v) for every vertex `v` of the active domain (the VERTICES port of a PATH whose
    regex is nullable: ε ∈ L(R), specs/semantics.md), through the Coalescer `out`."""
    admit = out.admit
    for v, _v, ts, exp, _wit in batch:
        got = admit((v, v), ts, exp, now)
        if got is not None:
            result.append((v, v, got[0], got[1], wit))
