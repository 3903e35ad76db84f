"""What runs turn into: training data for the judge (exporters, one registry) and drawings of judge graphs."""

from judgegraph.output._draw import DRAW_FORMATS, DrawFormat, draw, taken_edges
from judgegraph.output._export import Exporter, export, exporters, write_rows

__all__ = ("DRAW_FORMATS", "DrawFormat", "Exporter", "draw", "export", "exporters", "taken_edges", "write_rows")
