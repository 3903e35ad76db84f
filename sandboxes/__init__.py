"""Code sandboxes: the `Sandbox` protocol and its backends (Docker warm pool, bubblewrap). Arrives with issue #3."""

__all__: tuple[str, ...] = ()
