"""One registry mechanism for every kind of component (tools, judges, graph builders, backend profiles).

Registries are the only module-level mutable state: they are filled at import by decorators or `register` calls,
by built-ins named with the module that registers them (imported at their first lookup: `built_in`), and by
plugins: a registry with an entry-point group loads that group's entry points at its first lookup. An entry
point names a component (registered under the entry point's name) or a module (importing it registers what it
holds). A plugin that fails to load is recorded by name and skipped; the rest work. A failed lookup names what is
known so the caller can fix the name.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import logging
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from judgegraph.errors import ConfigError, UnknownComponentError

T = TypeVar("T")
log = logging.getLogger("judgegraph.plugins")


@dataclass(frozen=True)
class Plugin:
    """One entry point of a plugin group, as loaded."""

    group: str
    name: str
    value: str
    """`module:attribute`, as the distribution declares it."""
    distribution: str
    version: str
    error: str | None = None
    """Why it failed to load; None when it loaded."""


class Registry(Generic[T]):
    """Name -> component, for one kind of component."""

    by_group: ClassVar[dict[str, Registry[Any]]] = {}
    """Every registry that takes plugins, by its entry-point group."""

    def __init__(
        self, kind: str, *, plugins: str | None = None, adapt: Callable[[str, object], T] | None = None
    ) -> None:
        """`plugins`: the entry-point group whose entry points add components; `adapt` turns what an entry point
        names into a component (and refuses, with a ValueError or TypeError, what is not one)."""
        self.kind = kind
        self.group = plugins
        self._adapt = adapt
        self._items: dict[str, T] = {}
        self._built_in: dict[str, str] = {}
        self._plugins: list[Plugin] | None = None if plugins else []
        if plugins:
            Registry.by_group[plugins] = self

    def register(self, name: str, item: T, *, replace: bool = False) -> T:
        """Register `item` under `name`; a second registration of a name is an error unless `replace`."""
        if not replace and name in self._items and self._items[name] is not item:
            raise ConfigError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def built_in(self, modules: dict[str, str]) -> None:
        """Name -> the module that registers it, imported at the name's first lookup (every one of them when the
        names are listed): importing one component's module registers that component only."""
        self._built_in.update(modules)

    def _import_built_in(self, name: str | None = None) -> None:
        for n, module in list(self._built_in.items()):
            if (name is None or n == name) and n not in self._items:
                importlib.import_module(module)

    def unregister(self, name: str) -> None:
        """Remove `name` (for tests and plugins that register something for a while)."""
        self._items.pop(name, None)

    def decorator(self, name: str) -> Callable[[T], T]:
        """`@registry.decorator("name")` registers the decorated object."""

        def wrap(item: T) -> T:
            return self.register(name, item)

        return wrap

    def plugins(self) -> list[Plugin]:
        """The entry points of this registry's group, loaded (once, at the first call or lookup)."""
        if self._plugins is None:
            self._plugins = []  # set first: a plugin module may look things up while it loads
            assert self.group is not None
            for entry in sorted(importlib.metadata.entry_points(group=self.group), key=lambda e: e.name):
                self._plugins.append(self._load(entry))
        return self._plugins

    def _load(self, entry: importlib.metadata.EntryPoint) -> Plugin:
        dist = entry.dist
        found = Plugin(
            self.group or "", entry.name, entry.value, dist.name if dist else "?", dist.version if dist else "?"
        )
        try:
            loaded = entry.load()
            if not isinstance(loaded, types.ModuleType):  # a module registered its components as it was imported
                item = self._adapt(entry.name, loaded) if self._adapt else loaded
                self.register(entry.name, item)
        except Exception as e:  # whatever a third party's import raises: reported, never fatal
            error = f"{type(e).__name__}: {e}"
            log.warning(
                "plugin %s %r from %s (%s) failed to load: %s",
                self.kind,
                entry.name,
                found.distribution,
                entry.value,
                error,
            )
            return dataclasses.replace(found, error=error)
        return found

    def get(self, name: str) -> T:
        """The component named `name`; an unknown name raises an error listing the known ones."""
        try:
            return self._items[name]
        except KeyError:
            self._import_built_in(name)
        if name in self._items:
            return self._items[name]
        for plugin in self.plugins():
            if plugin.name == name and plugin.error:
                raise ConfigError(
                    f"{self.kind} {name!r} comes from the plugin {plugin.distribution} ({plugin.value}), which failed "
                    f"to load: {plugin.error}"
                )
        if name in self._items:
            return self._items[name]
        raise UnknownComponentError(self.kind, name, self.names())

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str):
            self._import_built_in(name)
        self.plugins()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def names(self) -> list[str]:
        """Registered names, sorted."""
        self._import_built_in()
        self.plugins()
        return sorted(self._items)
