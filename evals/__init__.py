"""Judge evaluation: dataset loaders, bundled eval sets, metrics and reports. Arrives with issue #9."""

__all__: tuple[str, ...] = ()
