"""Errors a user sees for a `.dl` file: `FILE:LINE:COL: error: MESSAGE`, the line, a caret.

One base class carries the position; `DlErrors` carries every error of one file so that all
are reported at once. Messages are for people: they say what is wrong and, where it helps,
what to write instead. No user mistake ever surfaces as a Python traceback.
"""

from __future__ import annotations

import re

import attrs

from .ast import Loc


@attrs.define(eq=False)
class DlError(Exception):
    """One error at one place in one `.dl` source."""

    message: str
    loc: Loc | None = None
    filename: str = "<string>"
    source: str | None = None

    def __attrs_post_init__(self) -> None:
        self.message = shown(self.message)
        Exception.__init__(self, self.message)

    def __str__(self) -> str:
        return self.render()

    @property
    def line(self) -> int | None:
        """The 1-based line of the error (None for an error of the whole program)."""
        return self.loc.line if self.loc is not None else None

    @property
    def column(self) -> int | None:
        """The 1-based column of the error (None for an error of the whole program)."""
        return self.loc.column if self.loc is not None else None

    def render(self) -> str:
        """`FILE:LINE:COL: error: MESSAGE`, then the source line and a caret under the column
        (the line's control characters escaped as in the message, a very long line cut to
        the part around the caret)."""
        filename = "".join(_escaped(c) for c in self.filename)
        if self.loc is None:
            return f"{filename}: error: {self.message}"
        head = f"{filename}:{self.loc.line}:{self.loc.column}: error: {self.message}"
        line = source_line(self.source, self.loc.line)
        if line is None:
            return head
        width = 1
        if self.loc.end_line == self.loc.line and self.loc.end_column:
            width = max(1, self.loc.end_column - self.loc.column)
        pieces = ["\t" if c == "\t" else _escaped(c) for c in line]
        start = self.loc.column - 1
        text = "".join(pieces)
        pad = "".join(p if p == "\t" else " " * len(p) for p in pieces[:start])
        under = pieces[start : start + width]
        span = sum(len(p) for p in under) + max(0, width - len(under))
        caret = "^" + "~" * (max(1, span) - 1)
        if len(text) > SHOWN_LINE:  # around the caret
            cut = max(0, len(pad) - SHOWN_LINE // 2)
            more = "…" if cut + SHOWN_LINE < len(text) else ""
            text = ("…" if cut else "") + text[cut : cut + SHOWN_LINE] + more
            pad = (" " if cut else "") + pad[cut:]
            caret = caret[: SHOWN_LINE - len(pad) + 1]
        return f"{head}\n    {text}\n    {pad}{caret}"


#: the most characters of a source line an error shows (a longer one around its caret)
SHOWN_LINE = 320


class DlErrors(Exception):
    """Every error found in one source, in source order."""

    def __init__(self, errors: list[DlError]):
        self.errors = sorted(errors, key=lambda e: (e.loc.line, e.loc.column) if e.loc else (0, 0))
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(e.render() for e in self.errors)

    def __str__(self) -> str:
        return self.render()


def _escaped(char: str) -> str:
    """`char` as a message shows it: a control character (or another one a terminal would
    act on or not show) as `\\x1b` / `\\u200b`, anything else as it is."""
    if char.isprintable():
        return char
    code = ord(char)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


#: a run of text without spaces longer than this is shortened in a message (user text: a
#: thousand-letter name or regular expression), keeping both ends
LONGEST_WORD = 80


def shown(message: str) -> str:
    """`message` safe to print: control characters escaped (`\\x00`, `\\x1b`), so a NUL or an
    ESC written in a program never reaches the terminal raw, and every run of more than
    `LONGEST_WORD` characters without a space cut in its middle (`aaaa…aaaa`), so a message
    stays a line whatever the user wrote."""
    if message.isprintable() and len(message) <= LONGEST_WORD:
        return message
    text = "".join(_escaped(c) for c in message)
    keep = (LONGEST_WORD - 1) // 2
    return re.sub(
        r"[^ ]{" + str(LONGEST_WORD + 1) + ",}",
        lambda m: m.group()[:keep] + "…" + m.group()[-keep:],
        text,
    )


def clipped_chain(names: list[str], arrow: str) -> str:
    """`a -> b -> c`, or for one of more than 12 names its first five and last five around
    `... (N more)` (a cycle or a chain through hundreds of predicates stays one line)."""
    if len(names) > 12:
        names = [*names[:5], f"... ({len(names) - 10} more)", *names[-5:]]
    return arrow.join(names)


def source_line(source: str | None, line: int) -> str | None:
    """The text of 1-based `line` of `source` (the caret copies its tabs to stay aligned)."""
    if source is None:
        return None
    lines = source.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


# ---- every message a user can get, and examples that trigger it ---------------------------
#
# Checks build their messages from these templates (`TEMPLATE.format(...)`), so the table below
# is the full list; tests/datalog/test_error_table.py proves every row reachable from its
# examples (Lark's GRAMMAR_ERRORS habit). Decisions worth knowing:
# - a rule head holds variables only: `_` and constants are rejected (filter in the body);
# - `.output` must name a rule head (an input label cannot be an output as is);
# - several `.output` / `.input` lines add up; a second default `.window`, a second window for
#   one label or a second `.slide` is an error;
# - the window must come from `.window` or the command line, for every input label;
# - one alias may name the same closure / path atom in several places, not two different ones.

# syntax (datalog/parser.py)
SYNTAX_CHAR = "unexpected character '{char}'{expected}"
SYNTAX_IF = "expected ':-' between the head and the body of a rule"
SYNTAX_STRING = "unterminated string (a string ends with '\"' on the same line)"
SYNTAX_COMMENT = "unterminated comment: '/*' has no closing '*/'"
REGEX_TOO_DEEP = (
    "regular expression nested more than {limit} levels deep; "
    "write it with fewer operators (a** is a*)"
)
SYNTAX_TOKEN = "unexpected {token}{expected}"
SYNTAX_MISSING_DOT = "unexpected {token}: is the rule on line {line} missing its final '.'?"
SYNTAX_EOF = "unexpected end of file{expected}"
SYNTAX_EOF_DOT = "unexpected end of file: the last rule is missing its final '.'"
SYNTAX_DIRECTIVE_VALUE = (
    "'{name}' was read as a value of '.{directive}' (line {line}), so a rule cannot start "
    "here: is a value missing after '.{directive}'?"
)
SYNTAX_AFTER_DIRECTIVE = "unexpected '{word}' after '.{directive} {value}' on the same line: {hint}"
SYNTAX_OFFSET = (
    "'{op}' in a comparison takes a duration, an integer with an optional unit s, m, h, d or w "
    "(t1 {op} 1h), not {token}"
)
SYNTAX_HEAD = (
    "a rule head is a plain atom such as {name}(x, y); closures and path atoms belong in "
    "rule bodies"
)

# directives (datalog/checks/directive_*.py)
UNKNOWN_DIRECTIVE = "unknown directive '.{name}'; known: .window, .slide, .output, .input{hint}"
NEEDS_DURATION = "'.{name}' needs a duration, e.g. .{name} {example}"
NAME_NOT_DURATION = (
    "'.{name}' needs a duration, not the name '{value}' "
    "(an integer with an optional unit s, m, h, d or w)"
)
ONE_DURATION = "'.{name}' takes one duration, but {count} values are given"
NEEDS_NAMES = "'.{name}' needs at least one predicate name, e.g. .{name} {example}"
DURATION_NOT_NAME = (
    "'.{name}' takes predicate names, not '{value}' (quote a name that is not an "
    'identifier: "{value}")'
)
NO_FOR = "'.{name}' takes no 'for' list{reason}"
DUPLICATE_WINDOW = "duplicate default '.window': already set to {value} on line {line}"
DUPLICATE_LABEL_WINDOW = "duplicate window for '{label}': already set to {value} on line {line}"
DUPLICATE_SLIDE = "duplicate '.slide': already set to {value} on line {line}"
BAD_DURATION = "bad duration '{text}': {reason}"

# windows (datalog/checks/window_*.py)
NO_WINDOW = "no window size: add '.window DURATION' to the program or pass --window"
NO_LABEL_WINDOW = (
    "input label '{label}' has no window: add a default '.window DURATION' or pass --window"
)
SLIDE_TOO_LARGE = (
    "slide {slide} is larger than the window {window}{of_label}; a slide must not exceed any window"
)

# the program as a whole (datalog/checks/*.py)
NO_RULES = "the program has no rules; a query needs at least one, e.g. Answer(x, y) :- a(x, y)."
NO_OUTPUT = "the program has no output: add '.output NAME' or define 'Answer'"
UNKNOWN_OUTPUT = "output '{name}' is not the head of any rule{hint}"
UNDEFINED = "predicate '{name}' is never defined: it is no rule's head and is not listed in .input"
HEAD_IS_INPUT = "'{name}' is an input label ({where}), so it cannot be the head of a rule"
RECURSION = "recursion is not allowed: {cycle} (a program may recurse only through p+, p* or [R])"
NESTING_TOO_DEEP = (
    "the plan of '{name}' nests deeper than {limit} operators ({depth}: {chain}); "
    "derive it through fewer rules, one on top of another"
)
AUTOMATON_TOO_LARGE = (
    "the automaton of this regular expression has more than {limit} states (each letter "
    "after a repeated alternation, as in (a|b)*/a/(a|b)/(a|b), doubles them)"
)
SIMPLE_AUTOMATON_TOO_LARGE = (
    "the automaton of this simple path atom has more than {limit} moves; a simple path is "
    "searched per move, so write fewer letters under * or + in one atom"
)
BODY_TOO_LONG = (
    "a rule body joins at most {limit} atoms, this one {count}: write the join as rules over "
    "parts of it"
)

# rules (datalog/checks/*.py)
ARITY = "atom '{name}' has {count}; atoms are binary: {example}"
UNSAFE_HEAD = "head variable '{name}' does not appear in any body atom"
HEAD_ANON = "'_' cannot appear in a rule head: name a variable bound in the body"
HEAD_CONST = (
    "constant {const} cannot appear in a rule head: use a variable and filter it in the body, "
    "e.g. x = {const}"
)
UNBOUND_COMPARED = (
    "variable '{name}' is compared but appears in no body atom "
    "(comparisons filter, they do not bind)"
)
ANON_COMPARED = "'_' cannot be compared; name the variable"
CONSTANTS_COMPARED = "a comparison of two constants is always true or always false; remove it"
# time variables (datalog/checks/time_variables.py, specs/semantics.md §4b)
TIME_IN_HEAD = "a rule head cannot bind a time variable ('@{name}'); time variables only filter"
TIME_AS_TERM = (
    "'{name}' is a time variable (bound by @{name} on line {line}), so it cannot be an atom "
    "argument; time variables only appear after '@' and in comparisons"
)
TIME_REBOUND = (
    "time variable '{name}' is already bound by @{name} on line {line}; give this atom its own "
    "name and compare the two ({name} = {name}2)"
)
TIME_ANON = "'_' cannot name a time variable: write @t with a name"
TIME_UNBOUND = "time variable '{name}' is compared but no body atom binds it with @{name}"
TIME_MIXED = (
    "time variable '{name}' can only be compared with another time variable, not with {other}"
)
ORDER_NOT_TIME = (
    "'{op}' compares time variables only (bound by atom@t); '{name}' is an ordinary variable"
)
OFFSET_NOT_TIME = (
    "a duration can only be added to or taken from a time variable (t1 + 1h, t2 - 5); '{name}' "
    "is an ordinary variable"
)
UNIT_CONSTANT = (
    "'{text}' is a number with a unit, but a vertex constant has none: write {number}, or "
    "\"{text}\" for a vertex of that name; a duration only follows '+' or '-' in a time "
    "comparison ({example})"
)
# properties (datalog/checks/properties.py, specs/semantics.md §4c)
PROP_IN_HEAD = (
    "a rule head has no properties: derived predicates are binary; bind and compare properties "
    "in the body"
)
PROP_VAR_AS_TERM = (
    "'{name}' is a property variable (bound by '{key}: {name}' on line {line}), so it cannot "
    "be a vertex argument; property variables only appear in braces and in comparisons"
)
PROP_ON_DERIVED = (
    "'{name}' is a derived predicate: only the edges of input labels carry properties, so it "
    "takes no braces"
)
PROP_STRING_ORDER = (
    "'{op}' does not order strings: a property compares with a string by = and != only"
)
PROP_MIXED = (
    "property variable '{name}' can only be compared with a property variable or a constant, "
    "not with {other}"
)
PROP_TIME_CLASH = (
    "'{name}' is bound as a time variable and as a property variable; give one of them another name"
)
PROP_OFFSET = (
    "'{text}' is not a number a property can be compared with or shifted by: write a plain "
    "number (d < 15, d2 >= d1 + 30, d != 2.5); units belong to time comparisons"
)
PROP_STRING_OFFSET = (
    "'{text}' is added to or taken from a side of a comparison with a string; strings take no "
    "offsets: compare the property with the string as it is"
)
ALIAS_IS_PREDICATE = "alias '{name}' is also the name of a predicate; choose another name"
ALIAS_REUSED = (
    "alias '{name}' already names a different closure or path atom on line {line}; choose "
    "another name"
)
SIMPLE_ATOM = (
    "'simple' qualifies a closure or a path atom, not the atom '{name}': write "
    "simple {name}+(x, y) or simple [{name}](x, y), or drop it"
)

_W = ".window 10\n"

ERROR_TABLE: tuple[tuple[str, tuple[str, ...]], ...] = (
    (SYNTAX_CHAR, (_W + "A(x, y) :- a(x, y); b(x, y).", _W + "A(x, y) :- a(x, y) & b(x, y).")),
    (SYNTAX_IF, (_W + "A(x, y) : a(x, y).", _W + "A(x, y) <- a(x, y).")),
    (SYNTAX_STRING, (_W + 'A(x, y) :- a(x, "y).',)),
    (SYNTAX_COMMENT, (_W + "A(x, y) :- a(x, y). /* never closed", "/* A(x, y) :- a(x, y).")),
    (REGEX_TOO_DEEP, (_W + "Answer(x, y) :- [a" + "*" * 300 + "](x, y).",)),
    (SYNTAX_TOKEN, (_W + "A(x, y) :- a(x, y),.", _W + "A(x, y) :- [a/](x, y).")),
    (SYNTAX_MISSING_DOT, (_W + "A(x, y) :- a(x, y)\nB(x, y) :- b(x, y).",)),
    (SYNTAX_EOF, (_W + "A(x, y) :- a(x,", _W + "A(x, y) :-")),
    (SYNTAX_EOF_DOT, (_W + "A(x, y) :- a(x, y)",)),
    (
        SYNTAX_DIRECTIVE_VALUE,
        (".window 10\n.output\nA(x, y) :- a(x, y).", ".window 10 for\nA(x, y) :- a(x, y)."),
    ),
    (SYNTAX_HEAD, (_W + "A+(x, y) :- a(x, y).", _W + "A*(x, y) :- a(x, y).")),
    (
        SYNTAX_OFFSET,
        (
            _W + "A(x, y) :- a(x, y)@t1, b(x, y)@t2, t1 + t2 < t2.",
            _W + "A(x, y) :- a(x, y)@t1, b(x, y)@t2, t2 <= t1 - -5.",
        ),
    ),
    (
        SYNTAX_AFTER_DIRECTIVE,
        (
            ".window 1 d\n.slide 1\nAnswer(x, y) :- a(x, y).",
            ".window 10\n.output A B\nA(x, y) :- a(x, y).",
        ),
    ),
    (
        UNKNOWN_DIRECTIVE,
        (".windows 10\nAnswer(x, y) :- a(x, y).", ".foo\n.window 10\nAnswer(x, y) :- a(x, y)."),
    ),
    (
        NEEDS_DURATION,
        ("Answer(x, y) :- a(x, y).\n.window", ".slide\n.window 10\nAnswer(x, y) :- a(x, y)."),
    ),
    (NAME_NOT_DURATION, (".window day\nAnswer(x, y) :- a(x, y).",)),
    (ONE_DURATION, (".window 10, 20\nAnswer(x, y) :- a(x, y).",)),
    (NEEDS_NAMES, (_W + ".output for a\nAnswer(x, y) :- a(x, y).",)),
    (
        DURATION_NOT_NAME,
        (_W + ".input 42\nAnswer(x, y) :- a(x, y).", _W + ".output 5\nAnswer(x, y) :- a(x, y)."),
    ),
    (
        NO_FOR,
        (
            _W + ".slide 2 for a\nAnswer(x, y) :- a(x, y).",
            _W + ".output Answer for a\nAnswer(x, y) :- a(x, y).",
        ),
    ),
    (DUPLICATE_WINDOW, (_W + ".window 20\nAnswer(x, y) :- a(x, y).",)),
    (DUPLICATE_LABEL_WINDOW, (_W + ".window 5 for a\n.window 6 for a\nAnswer(x, y) :- a(x, y).",)),
    (DUPLICATE_SLIDE, (_W + ".slide 2\n.slide 3\nAnswer(x, y) :- a(x, y).",)),
    (
        BAD_DURATION,
        (
            ".window 10x\nAnswer(x, y) :- a(x, y).",
            ".window 0\nAnswer(x, y) :- a(x, y).",
            ".window -5\nAnswer(x, y) :- a(x, y).",
        ),
    ),
    (NO_WINDOW, ("Answer(x, y) :- a(x, y).",)),
    (NO_LABEL_WINDOW, (".window 5 for a\nAnswer(x, y) :- a(x, z), b(z, y).",)),
    (
        SLIDE_TOO_LARGE,
        (
            ".window 1h\n.slide 2h\nAnswer(x, y) :- a(x, y).",
            ".window 1h\n.window 1m for a\n.slide 5m\nAnswer(x, y) :- a(x, y).",
        ),
    ),
    (NO_RULES, (_W, "// nothing here\n")),
    (NO_OUTPUT, (_W + "A(x, y) :- a(x, y).",)),
    (
        UNKNOWN_OUTPUT,
        (_W + ".output B\nA(x, y) :- a(x, y).", _W + ".output a\nA(x, y) :- a(x, y)."),
    ),
    (UNDEFINED, (_W + ".input a\nAnswer(x, y) :- a(x, z), b(z, y).",)),
    (
        HEAD_IS_INPUT,
        (
            _W + ".input a\nAnswer(x, y) :- a(x, y).\na(x, y) :- Answer(x, y).",
            _W + ".window 5 for A\nA(x, y) :- a(x, y).\nAnswer(x, y) :- A(x, y).",
        ),
    ),
    (
        RECURSION,
        (
            _W + "Answer(x, y) :- Answer(x, z), a(z, y).",
            _W + "Answer(x, y) :- B(x, y).\nB(x, y) :- Answer(x, y).",
            _W + "Answer(x, y) :- Answer+(x, y).",
        ),
    ),
    (
        NESTING_TOO_DEEP,
        (
            _W
            + "P0(x, y) :- a(x, y).\n"
            + "".join(f"P{i}(x, y) :- P{i - 1}(x, y).\n" for i in range(1, 260))
            + ".output P259",
        ),
    ),
    (
        AUTOMATON_TOO_LARGE,
        (_W + "Answer(x, y) :- [(a|b)*/a" + "/(a|b)" * 12 + "](x, y).",),
    ),
    (
        SIMPLE_AUTOMATON_TOO_LARGE,
        (_W + "Answer(x, y) :- simple [" + "/".join(f"l{i}*" for i in range(70)) + "](x, y).",),
    ),
    (
        BODY_TOO_LONG,
        (_W + "Answer(x, y) :- a(x, y), " + ", ".join(f"b(x, z{i})" for i in range(70)) + ".",),
    ),
    (
        ARITY,
        (
            _W + "Answer(x, y) :- a(x, y, z).",
            _W + "Answer(x) :- a(x, y).",
            _W + "Answer(x, y) :- a+(x).",
        ),
    ),
    (UNSAFE_HEAD, (_W + "Answer(x, z) :- a(x, y).", _W + "Answer(x, y) :- a(x, x), x = y.")),
    (HEAD_ANON, (_W + "Answer(x, _) :- a(x, y).",)),
    (HEAD_CONST, (_W + 'Answer(x, "bob") :- a(x, y).', _W + "Answer(42, y) :- a(x, y).")),
    (UNBOUND_COMPARED, (_W + "Answer(x, y) :- a(x, y), x != z.",)),
    (ANON_COMPARED, (_W + "Answer(x, y) :- a(x, y), x != _.",)),
    (CONSTANTS_COMPARED, (_W + 'Answer(x, y) :- a(x, y), "a" = "b".',)),
    (TIME_IN_HEAD, (_W + "Answer(x, y)@t :- a(x, y)@t.",)),
    (TIME_AS_TERM, (_W + "Answer(x, t) :- a(x, y)@t.", _W + "Answer(x, y) :- a(x, y)@t, b(t, y).")),
    (TIME_REBOUND, (_W + "Answer(x, y) :- a(x, z)@t, b(z, y)@t.",)),
    (TIME_ANON, (_W + "Answer(x, y) :- a(x, y)@_.",)),
    (
        TIME_UNBOUND,
        (_W + "Answer(x, y) :- a(x, y)@t, t < s.", _W + "Answer(x, y) :- a(x, y), s < t."),
    ),
    (
        TIME_MIXED,
        (_W + "Answer(x, y) :- a(x, y)@t, t != x.", _W + "Answer(x, y) :- a(x, y)@t, t = 5."),
    ),
    (ORDER_NOT_TIME, (_W + "A(x, y) :- a(x, y), x < y.", _W + "A(x, y) :- a(x, y), x >= y.")),
    (
        OFFSET_NOT_TIME,
        (_W + "A(x, y) :- a(x, y), x = y + 1h.", _W + "A(x, y) :- a(x, y), x - 2 != y."),
    ),
    (
        UNIT_CONSTANT,
        (
            _W + "A(x, y) :- a(x, y), x != 5m.",
            _W + "A(x, y) :- a(x, -2h).",
            _W + "A(x, y) :- a(x, y)@t, b(x, y)@u, t < 3h.",
        ),
    ),
    (PROP_IN_HEAD, (_W + "Answer(x, y){k: v} :- a(x, y){k: v}.",)),
    (
        PROP_VAR_AS_TERM,
        (_W + "Answer(x, d) :- a(x, y){delay: d}.", _W + "Answer(x, y) :- a(x, y){k: v}, b(v, y)."),
    ),
    (
        PROP_ON_DERIVED,
        (
            _W + "B(x, y) :- a(x, y).\nAnswer(x, y) :- B(x, y){k: 1}.",
            _W + "B(x, y) :- a(x, y).\nAnswer(x, y) :- [B{k < 1}+](x, y).",
        ),
    ),
    (
        PROP_STRING_ORDER,
        (
            _W + 'Answer(x, y) :- a(x, y){c: c}, c < "AA".',
            _W + 'Answer(x, y) :- [a{c >= "AA"}+](x, y).',
        ),
    ),
    (
        PROP_MIXED,
        (
            _W + "Answer(x, y) :- a(x, y){k: v}, v = x.",
            _W + "Answer(x, y) :- a(x, y){k: v}@t, v < t.",
        ),
    ),
    (PROP_TIME_CLASH, (_W + "Answer(x, y) :- a(x, y){k: t}@t.",)),
    (
        PROP_OFFSET,
        (
            _W + "Answer(x, y) :- a(x, y){k: v}, b(x, y){k: w}, v < w + 1h.",
            _W + "Answer(x, y) :- a(x, y){k: 5m}.",
        ),
    ),
    (PROP_STRING_OFFSET, (_W + 'Answer(x, y) :- a(x, y){k: v}, v + 1 = "x".',)),
    (ALIAS_IS_PREDICATE, (_W + "Answer(x, y) :- a+(x, y) as a.",)),
    (
        ALIAS_REUSED,
        (
            _W + "Answer(x, y) :- a+(x, z) as P, b+(z, y) as P.",
            _W + "Answer(x, y) :- a+(x, z) as P, simple a+(z, y) as P.",
        ),
    ),
    (SIMPLE_ATOM, (_W + "Answer(x, y) :- simple a(x, y).",)),
)


def message_pattern(template: str) -> re.Pattern[str]:
    """A regex matching every message `template.format(...)` can produce."""
    parts = re.split(r"\{[a-z_]+\}", template)
    return re.compile(".*".join(re.escape(p) for p in parts), re.DOTALL)
