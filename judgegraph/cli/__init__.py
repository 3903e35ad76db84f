"""The `judgegraph` command line."""

from judgegraph.cli._app import app, main

__all__ = ("app", "main")
