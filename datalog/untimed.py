"""A program without its time variables: the same rules with every `@t` and every time
comparison dropped (specs/semantics.md §4b). `sgq bench` runs each timing workload both ways
on one stream, to measure what the timing order saves; the untimed program's results are a
superset of the timed one's."""

from __future__ import annotations

import attrs

from .ast import Comparison, Program, Rule, property_variables, time_variables
from .checks.time_variables import is_time_comparison


def without_time(program: Program) -> Program:
    """`program` with no time variable and no time comparison left."""
    statements = []
    for statement in program.statements:
        if isinstance(statement, Rule):
            times = time_variables(statement)
            props = property_variables(statement)
            body = tuple(
                attrs.evolve(lit, time=None) if not isinstance(lit, Comparison) else lit
                for lit in statement.body
                if not (isinstance(lit, Comparison) and is_time_comparison(lit, times, props))
            )
            statement = attrs.evolve(statement, body=body)
        statements.append(statement)
    return Program(tuple(statements))
