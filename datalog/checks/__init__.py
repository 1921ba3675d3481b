"""The checks `datalog.check` runs, one small function per error kind (STYLE.md: no giant
checker). Each takes a `CheckContext` and returns the `DlError`s it finds; all of a file's
errors are reported together. Messages come from the table in `datalog/errors.py`."""

from __future__ import annotations

from .aliases import check_aliases
from .arity import check_binary_atoms
from .automaton_size import check_automaton_size
from .body_size import check_body_size
from .comparisons import check_comparisons
from .constant_units import check_constant_units
from .context import CheckContext, DirectiveFacts, directive_facts
from .directive_duplicates import check_duplicates
from .directive_duration_values import check_duration_values
from .directive_for import check_for_lists
from .directive_name_values import check_name_values
from .directive_unknown import check_unknown_directives
from .durations import check_durations
from .head_is_input import check_heads_not_inputs
from .head_safety import check_head_safety
from .head_terms import check_head_terms
from .nesting_depth import check_nesting_depth
from .no_rules import check_has_rules
from .output_missing import check_has_output
from .output_unknown import check_outputs_defined
from .properties import check_properties
from .recursion import check_no_recursion
from .simple_paths import check_simple_targets
from .time_variables import check_time_variables
from .undefined_predicates import check_predicates_defined
from .window_missing import check_window_present
from .window_slide import check_slide_within_windows

ALL_CHECKS = (
    check_unknown_directives,
    check_duration_values,
    check_name_values,
    check_for_lists,
    check_durations,
    check_duplicates,
    check_window_present,
    check_slide_within_windows,
    check_has_rules,
    check_binary_atoms,
    check_body_size,
    check_head_terms,
    check_constant_units,
    check_head_safety,
    check_comparisons,
    check_time_variables,
    check_properties,
    check_predicates_defined,
    check_heads_not_inputs,
    check_outputs_defined,
    check_has_output,
    check_no_recursion,
    check_nesting_depth,
    check_automaton_size,
    check_aliases,
    check_simple_targets,
)

__all__ = ["ALL_CHECKS", "CheckContext", "DirectiveFacts", "directive_facts"]
