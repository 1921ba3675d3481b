"""Per-operator calibration of the cost formulas (thesis 6.5.1: the model's constants are set
empirically), measured by `python -m benchmarks.calibrate_costs docs/optimizer-operators.json`.

The formulas of operator_costs.py price every operator in the same unit (Table 6.1's weights
all 1), but they do not err alike: over the bench programs' operators (docs/optimizer.md,
"Calibration") PATH's eqs. 6.25-6.28 overestimate its measured CPU time by orders of magnitude
more than WSCAN's eq. 6.18 does (the `n² k` expiry term is a worst case our per-level closures
rarely reach), PATTERN's by about one. A single set of Table 6.1 weights cannot absorb this:
fitting the six weights to the same rows drove P_h, U_pq and P_pq to zero and lowered the
correlation, since PATTERN and PATH share P_h. So each operator kind's cost is multiplied by
its factor below: the median, over that kind's measured operators, of measured CPU time over
formula cost, relative to WSCAN's (kinds not measured keep 1, as WSCAN: FILTER and UNION are
priced by the same per-output formula).
"""

from __future__ import annotations

from ..algebra import Filter, Path, Pattern, Rename, Union, Vertices, WScan

#: operator class -> factor on its formula cost (WSCAN = 1)
CALIBRATION: dict[type, float] = {
    WScan: 1.0,
    Filter: 1.0,
    Union: 1.0,
    Vertices: 0.75,
    Rename: 1.9e-4,
    Pattern: 0.08,
    Path: 2.7e-4,
}
