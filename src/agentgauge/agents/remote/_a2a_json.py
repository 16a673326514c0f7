"""A2A's protobuf messages as the JSON objects of the wire, as ``json_format.MessageToDict`` gives them, faster.

a2a-sdk hands each received event over as a protobuf message; the converter (:mod:`._a2a_convert`) reads JSON
objects. ``MessageToDict`` walks every descriptor in pure Python (~30 us per event of the remote benchmark); this
walks only the fields set, as ``ListFields()`` (answered by upb in C) lists them, each field's conversion worked
out once per field descriptor (~16 us; ~22 us when worked out at every field), and gives the same result
for the messages A2A uses (camelCase keys, enum names, int64 as strings, bytes as base64, well-known types as their
JSON). Numbers are plain: a double that holds an integer comes back as an ``int`` (protobuf's ``Struct`` keeps every
number as a double, so ``{"a": 2}`` would otherwise read ``2.0``).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

__all__ = ["plain_json", "proto_json"]

_INT64 = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
_FLOATS = frozenset({FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE})


def plain_json(value: Any) -> Any:
    """``value`` with integral floats as ints, recursively (for JSON that went through a protobuf ``Struct``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_json(item) for item in value]
    return value


def proto_json(message: Message) -> Any:
    """``plain_json(MessageToDict(message))``, computed without the pure-Python descriptor walk."""
    name = message.DESCRIPTOR.full_name
    special = _SPECIAL.get(name)
    if special is not None:
        return special(message)
    if name.startswith("google.protobuf."):
        return _well_known(message)
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        name, convert = _PLANS.get(field) or _plan(field)
        out[name] = value if convert is None else convert(value)
    return out


Converter = Callable[[Any], Any]

# How each field's value becomes JSON, worked out once per field descriptor (a run meets a few dozen): the JSON
# name and a converter, or None where the value is its JSON already (strings, bools, 32-bit integers).
_PLANS: dict[FieldDescriptor, tuple[str, Converter | None]] = {}


def _plan(field: FieldDescriptor) -> tuple[str, Converter | None]:
    message_type = field.message_type
    item = _converter(field)
    plan: tuple[str, Converter | None]
    if message_type is not None and message_type.GetOptions().map_entry:
        entry = _converter(message_type.fields_by_name["value"])
        plan = (field.json_name, lambda value: {str(key): _apply(entry, one) for key, one in value.items()})
    elif field.is_repeated:
        plan = (field.json_name, list if item is None else lambda value: [item(one) for one in value])
    else:
        plan = (field.json_name, item)
    _PLANS[field] = plan
    return plan


def _apply(convert: Converter | None, value: Any) -> Any:
    return value if convert is None else convert(value)


def _converter(field: FieldDescriptor) -> Converter | None:
    """The converter of one value of ``field`` (``None``: the value is its own JSON)."""
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        return proto_json
    if kind == FieldDescriptor.TYPE_ENUM:
        names = {number: value.name for number, value in field.enum_type.values_by_number.items()}
        return lambda value: names.get(value, value)
    if kind in _INT64:
        return str
    if kind == FieldDescriptor.TYPE_BYTES:
        return lambda value: base64.b64encode(value).decode("ascii")
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return lambda value: _number(value) if math.isfinite(value) else _float_json(field, value)
    if kind == FieldDescriptor.TYPE_FLOAT:  # float32 (printed shortest): rare
        return lambda value: _float_json(field, value)
    return None


def _float_json(field: FieldDescriptor, value: float) -> Any:
    """A float32, or a non-finite double ("NaN", "Infinity"), as MessageToDict prints it."""
    return plain_json(MessageToDict(_wrapped(field, value)))


def _value(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return _number(value.number_value)
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return _struct(value.struct_value)
    if kind == "list_value":
        return [_value(item) for item in value.list_value.values]
    return None  # null_value, or no kind set (MessageToDict gives None for both)


def _number(number: float) -> float | int:
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _wrapped(field: FieldDescriptor, value: float) -> Message:
    """A float field's value in a wrapper message, whose JSON is the value as MessageToDict prints it."""
    from google.protobuf import wrappers_pb2

    wrapper = wrappers_pb2.FloatValue if field.type == FieldDescriptor.TYPE_FLOAT else wrappers_pb2.DoubleValue
    return wrapper(value=value)


def _struct(message: Any) -> dict[str, Any]:
    fields = message.fields  # keys and lookups in C; .items() would pair them in Python (collections.abc)
    return {key: _value(fields[key]) for key in fields}


def _list_value(message: Any) -> list[Any]:
    return [_value(item) for item in message.values]


def _well_known(message: Message) -> Any:
    return plain_json(MessageToDict(message))


# Messages whose JSON is not their fields: Struct and its parts (the other well-known types, Timestamp, Duration,
# wrappers, Any..., are rare and have JSON forms of their own: MessageToDict's).
_SPECIAL: dict[str, Converter] = {
    "google.protobuf.Struct": _struct,
    "google.protobuf.Value": _value,
    "google.protobuf.ListValue": _list_value,
}
