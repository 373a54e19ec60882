"""How the browser test fails: a check that did not hold, or a missing tool.

The other modules raise these; browser_test.main() prints them and picks the
exit status (1 for a failed check, 2 for a setup problem).
"""

from __future__ import annotations


class CheckFailed(Exception):
    """A check that did not hold: its step, what was expected, what was shown,
    and the zeader servers' last output lines."""

    def __init__(self, step: str, expected: str, shown: str, output: str):
        super().__init__(f"{step}: {expected}")
        self.step, self.expected, self.shown, self.output = step, expected, shown, output

    def report(self) -> str:
        return "\n".join([
            f"browser test FAILED in step {self.step}",
            f"  expected: {self.expected}",
            "  shown:",
            indent(self.shown, 4),
            self.output,
        ])


class SetupError(Exception):
    """Something the test needs is missing (Chromium, Selenium, zeader)."""


def indent(text: str, spaces: int) -> str:
    """`text` with every line indented, or `(nothing)` when it is empty."""
    return "\n".join(" " * spaces + line for line in text.splitlines()) if text else " " * spaces + "(nothing)"
