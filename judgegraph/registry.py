"""One registry mechanism for every kind of component (tools, judges, graph builders, backend profiles).

Registries are the only module-level mutable state: they are filled at import by decorators or
`register` calls, and a failed lookup names what is known so the caller can fix the name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from judgegraph.errors import ConfigError, UnknownComponentError

T = TypeVar("T")


class Registry(Generic[T]):
    """Name -> component, for one kind of component."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, item: T, *, replace: bool = False) -> T:
        """Register `item` under `name`; a second registration of a name is an error unless `replace`."""
        if not replace and name in self._items and self._items[name] is not item:
            raise ConfigError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def unregister(self, name: str) -> None:
        """Remove `name` (for tests and plugins that register something for a while)."""
        self._items.pop(name, None)

    def decorator(self, name: str) -> Callable[[T], T]:
        """`@registry.decorator("name")` registers the decorated object."""

        def wrap(item: T) -> T:
            return self.register(name, item)

        return wrap

    def get(self, name: str) -> T:
        """The component named `name`; an unknown name raises an error listing the known ones."""
        try:
            return self._items[name]
        except KeyError:
            raise UnknownComponentError(self.kind, name, sorted(self._items)) from None

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)
