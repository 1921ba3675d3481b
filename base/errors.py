"""The error every `sgq` command turns into a message (no traceback) and an exit code."""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix: bad arguments, a missing file, bad input, a failed check.

    `exit_code` is 2 for usage and input problems (the default) and 1 for a check that ran
    and failed.
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code
