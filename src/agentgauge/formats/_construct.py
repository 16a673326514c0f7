"""Model instances from values the caller has already type-checked, with as little memory per instance as possible.

A loaded eval set holds hundreds of thousands of small models, and pydantic's per-instance bookkeeping costs more
than their data: validation gives every instance its own ``__dict__`` and its own ``model_fields_set`` set (about
200 bytes each, even when empty). :func:`constructor` sets exactly what
:meth:`pydantic.BaseModel.model_construct` sets -- the field values, ``__pydantic_fields_set__``,
``__pydantic_extra__`` and ``__pydantic_private__`` -- with two differences that together save about 60% of that
overhead (and half the time of ``model_construct``):

- Field values are stored as ordinary instance attributes, in field order, so CPython keeps them in its compact
  per-class shared-key layout instead of a separate dict per instance. ``__dict__`` still works as usual: CPython
  creates it on first access, and pydantic reads and writes it (assignment, ``==``, copies, serialisation).
- All instances of a class share one fields set that holds every field name. Pydantic only ever ``add``s to it:
  assigning a field adds a name already present (a no-op); assigning an unknown attribute (``extra="allow"``) adds
  that name, which then shows up in every instance's ``model_fields_set``. Values never leak between instances.
  Nothing in agentgauge reads ``model_fields_set`` (or uses ``exclude_unset``), which here claims every field set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["constructor"]

M = TypeVar("M", bound=BaseModel)


def constructor(cls: type[M]) -> Callable[..., M]:
    """``constructor(Tool)(id, name, arguments, result)``: a function making an instance from already-checked
    values of all fields, in declaration order."""
    if cls.__pydantic_post_init__ or cls.__private_attributes__ or cls.__pydantic_root_model__:
        # model_construct does more for these; the models read in bulk have none of them.
        raise TypeError(f"{cls.__name__} needs model_construct, not a plain constructor")
    names = tuple(cls.model_fields)
    params = ", ".join(f"v{i}" for i in range(len(names)))
    # Generated with one statement per field, like dataclasses' __init__: a loop costs twice as much per instance.
    # ``{}`` is per instance: extra attributes are stored in it.
    source = "\n".join(
        [
            f"def make({params}):",
            "    instance = new(cls)",
            *(f"    set_attribute(instance, {name!r}, v{i})" for i, name in enumerate(names)),
            "    set_attribute(instance, '__pydantic_fields_set__', fields_set)",
            "    set_attribute(instance, '__pydantic_extra__', {})",
            "    set_attribute(instance, '__pydantic_private__', None)",
            "    return instance",
        ]
    )
    namespace: dict[str, Any] = {
        "cls": cls,
        "new": cls.__new__,
        "set_attribute": object.__setattr__,
        "fields_set": set(names),
    }
    exec(source, namespace)  # the source is built above from the model's own field names only
    make: Callable[..., M] = namespace["make"]
    make.__qualname__ = f"construct_{cls.__name__}"
    return make
