"""The bottom layer of sgq: what every other package may import, and which imports none of
them.

- `errors`: `UserError`, the one exception whose message a user sees;
- `options`: `PlanOptions` and `Tuning`, the choices that change a plan but not its results;
- `components`: strongly connected components (rule dependencies, closure condensation);
- `dfa`, `suffix_languages`: the regular-expression automata of PATH and their suffix
  languages (RSPQ's conflict test);
- `durable`: files that survive a crash (atomic replace, fsync, cut back, kill points), shared
  by the checkpoints of both engines;
- `version`: sgq's version, written into every checkpoint.

The layers above, bottom to top: datalog, sga, incremental, oracle and spark_engine, then the
sgq package itself (command line, library API, input and output). tests/test_layering.py holds
that order.
"""
