"""Performance benchmarks; `python -m benchmarks.run` rewrites BENCHMARKS.md."""
