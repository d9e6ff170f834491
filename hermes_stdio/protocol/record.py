"""``Record``: the base of every protocol type, a light frozen dataclass.

Contract: a subclass declares annotated fields, optionally with
``doc_field(doc, default)``; instances are immutable, compare by value and are
built positionally or by keyword like a dataclass (type checkers see them as
one, via ``dataclass_transform``); a ``kw_only`` field is set by keyword only.
Class creation does no code generation, so importing the protocol types stays
cheap for the supervisor's start-up.
"""

from __future__ import annotations

from typing import Any, ClassVar, dataclass_transform

MISSING: Any = object()


class FieldSpec:
    __slots__ = ("default", "doc", "kw_only")

    def __init__(self, doc: str, default: Any, kw_only: bool) -> None:
        self.doc = doc
        self.default = default
        self.kw_only = kw_only


def doc_field(doc: str, default: Any = MISSING, *, kw_only: bool = False) -> Any:
    """A field with a description that ends up in the JSON Schema."""
    return FieldSpec(doc, default, kw_only)


@dataclass_transform(frozen_default=True, field_specifiers=(doc_field,))
class Record:
    # (name, default or MISSING, doc) per field, in declaration order.
    _spec: ClassVar[tuple[tuple[str, Any, str], ...]] = ()
    _names: ClassVar[tuple[str, ...]] = ()
    _positional: ClassVar[tuple[str, ...]] = ()
    _name_set: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = []
        positional = []
        # Own annotations only; inspect.get_annotations would cost start-up time.
        for name in cls.__dict__.get("__annotations__", {}):  # noqa: RUF063
            value = cls.__dict__.get(name, MISSING)
            if isinstance(value, FieldSpec):
                spec.append((name, value.default, value.doc))
                if not value.kw_only:
                    positional.append(name)
            else:
                spec.append((name, value, ""))
                positional.append(name)
            if name in cls.__dict__:
                delattr(cls, name)
        cls._spec = tuple(spec)
        cls._names = tuple(name for name, _, _ in spec)
        cls._positional = tuple(positional)
        cls._name_set = frozenset(cls._names)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        names = cls._names
        if args:
            positional = cls._positional
            if len(args) > len(positional):
                raise TypeError(f"{cls.__name__} takes {len(positional)} positional arguments")
            values = dict(zip(positional, args, strict=False))
        else:
            values = {}
        if kwargs:
            # Set operations, not a loop: records are built for every response sent.
            if not cls._name_set.issuperset(kwargs) or not values.keys().isdisjoint(kwargs):
                key = next(k for k in kwargs if k in values or k not in cls._name_set)
                raise TypeError(f"{cls.__name__}: unexpected or repeated argument {key!r}")
            values.update(kwargs)
        if len(values) < len(names):
            for name, default, _ in cls._spec:
                if name not in values:
                    if default is MISSING:
                        raise TypeError(f"{cls.__name__}: missing argument {name!r}")
                    values[name] = default
        self.__dict__.update(values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash((type(self), *self.__dict__.values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({inner})"
