"""Tables that read whole at any width (80 columns, a pipe, a CI log): each column has the least width it is
shown at (never less than its header, so no header or short value is split into fragments), and where the
terminal cannot hold them all, the columns that matter least are left out and the caption says which."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

BORDER = 3
"""What rich's default box adds per column (a rule and a space each side); plus one for the last rule."""


@dataclass(frozen=True)
class Column:
    header: str
    width: int = 0
    """The least width it is shown at (at least its header's length)."""
    keep: int = 1
    """Left out first where the terminal is too narrow: the lowest `keep`, the last of equals."""
    wrap: bool = False
    """Long text wraps at spaces (descriptions); otherwise one line, cut with an ellipsis (ids, names)."""

    @property
    def least(self) -> int:
        return max(len(self.header), self.width)


def fitted(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], console: Console, title: str | None = None
) -> Table:
    """A table of `rows` (one string per column) fitted to `console`'s width."""
    shown = list(range(len(columns)))
    while len(shown) > 1 and sum(columns[i].least + BORDER for i in shown) + 1 > console.width:
        drop = min(reversed(shown), key=lambda i: columns[i].keep)
        shown.remove(drop)
    left_out = [columns[i].header for i in range(len(columns)) if i not in shown]
    caption = f"not shown at this width: {', '.join(left_out)}" if left_out else None

    def build(squeezed: bool) -> Table:
        # squeezed: the columns that wrap share what the others leave of the width (rich's own collapse can
        # stop short of its columns' least widths and let the table run past the edge, where it is cut)
        table = Table(title=title, caption=caption, expand=squeezed)
        for i in shown:
            c = columns[i]
            table.add_column(
                c.header,
                min_width=c.least,
                no_wrap=not c.wrap,
                overflow="fold" if c.wrap else "ellipsis",
                ratio=1 if squeezed and c.wrap else None,
            )
        for row in rows:
            table.add_row(*(row[i] for i in shown))
        return table

    natural = Measurement.get(console, console.options.update(max_width=1 << 16), build(False)).maximum
    return build(natural > console.width and any(columns[i].wrap for i in shown))
