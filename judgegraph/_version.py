"""The package version (also written into every trajectory)."""

__version__ = "0.1.0"
