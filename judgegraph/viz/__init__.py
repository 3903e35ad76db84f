"""The graph visualizer and trajectory viewer: `judgegraph viz` serves it on 127.0.0.1."""

from judgegraph.viz._app import create_app

__all__ = ("create_app",)
