"""The Spark engine (`sgq run --engine spark`, issue 15): the same SGA plan as the
single-process engine, evaluated as micro-batches of one slide bucket each by Spark
DataFrame programs over state tables held by Spark, with the same results.

Modules: batch_grid (the batches), coverage (the semiring merge every stateful operator ends
with), state_store (the tables and their one flush job per batch), relation and
batch_context (what operators read and call), selects / pattern / closure (the operators),
physical (the node -> program table), refusals (what is not run yet), source (the input's
batches), engine (a batch through the plan), commits (checkpoints), batch_output and
delta_view (output written by Spark, a directory per batch), driver (a whole run).
Independent of the oracle (sgq/oracle), which re-evaluates from the datalog program.
"""
