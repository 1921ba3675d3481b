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
"""

from __future__ import annotations

from ...sga.algebra import regex_labels
from ..dfa import compile_regex
from ..state.coalescer import Coalescer
from ..state.delta_path import DeltaPath
from .base import PhysicalOperator


class PathOp(PhysicalOperator):
    __slots__ = ("dfa", "letters", "index_of_letter", "state", "out", "paths", "has_domain")

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.dfa = compile_regex(node.regex)
        self.letters = regex_labels(node.regex)
        if len(self.letters) != len(node.inputs):
            raise ValueError(f"PATH {node.label}: {len(node.inputs)} inputs for letters "
                             f"{self.letters}")
        self.index_of_letter = {l: ctx.index_of(inp) for l, inp in zip(self.letters, node.inputs)}
        self.state = DeltaPath(self.dfa.start)
        self.out = Coalescer()
        self.paths = ctx.paths
        self.has_domain = node.domain is not None

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
                        self._relax(x, tree, (u, s), v, q, ts if ts > n_ts else n_ts,
                                    exp if exp < n_exp else n_exp, wit, now, result)
        return result

    def _epsilon(self, batch, now, result) -> None:
        """(v, v) for every vertex of the active domain: ε ∈ L(R)."""
        if not self.dfa.nullable:
            return
        admit = self.out.admit
        for v, _v, ts, exp, wit in batch:
            got = admit((v, v), ts, exp, now)
            if got is not None:
                result.append((v, v, got[0], got[1], () if self.paths else None))

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
            elif node[1] <= now:                      # expired: a fresh derivation
                node[0], node[1], node[2], node[3] = ts, exp, parent, wit
            elif exp > node[1]:                       # Propagate: a later-expiring path
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
                    result.append((x, v, got[0], got[1],
                                   state.path_to(x, key) if paths else None))
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

    def purge(self, now):
        self.state.purge(now)
        self.out.purge(now)

    def size(self):
        return len(self.state) + len(self.out)

    def _check(self):
        self.state._check()
        self.out._check()
