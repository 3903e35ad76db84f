"""`python -m judgegraph`: the same as the `judgegraph` command."""

from judgegraph.cli import main

main()
