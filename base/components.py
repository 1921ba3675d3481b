"""Strongly connected components (Tarjan, iteratively: no recursion limit on long chains).

Shared by the front end's recursion check (datalog/checks/recursion.py, over predicate
names) and the PATH closure rebuild (incremental/state/graph_closure.py, over product nodes):
a module of its own so that neither layer imports the other. Cost: O(nodes + edges).
"""

from __future__ import annotations


def strongly_connected(succ: dict) -> list[list]:
    """The strongly connected components of `succ` (node -> successors; every successor a
    key too), sinks first: a component comes after every component it reaches. Roots and
    successors are taken in the order `succ` gives them, so a caller that wants a stable
    order (the recursion check's error messages) passes them sorted."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: list = []
    counter = 0
    for root in succ:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(succ[root]))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ[w])))
                    break
                if w in on_stack and index[w] < low[v]:
                    low[v] = index[w]
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(comp)
    return out
