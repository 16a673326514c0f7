"""A2A's protobuf messages as the JSON objects of the wire, as ``json_format.MessageToDict`` gives them, faster.

a2a-sdk hands each received event over as a protobuf message; the converter (:mod:`._a2a_convert`) reads JSON
objects. ``MessageToDict`` walks every descriptor in pure Python (~30 us per event of the remote benchmark); this
walks only the fields set, as ``ListFields()`` (answered by upb in C) lists them (~19 us), and gives the same result
for the messages A2A uses (camelCase keys, enum names, int64 as strings, bytes as base64, well-known types as their
JSON). Numbers are plain: a double that holds an integer comes back as an ``int`` (protobuf's ``Struct`` keeps every
number as a double, so ``{"a": 2}`` would otherwise read ``2.0``).
"""

from __future__ import annotations

import base64
import math
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
    if name == "google.protobuf.Struct":
        return {key: _value(item) for key, item in message.fields.items()}
    if name == "google.protobuf.Value":
        return _value(message)
    if name == "google.protobuf.ListValue":
        return [_value(item) for item in message.values]
    if name.startswith("google.protobuf."):  # Timestamp, Duration, wrappers, Any...: rare, their own JSON forms
        return plain_json(MessageToDict(message))
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        message_type = field.message_type
        if message_type is not None and message_type.GetOptions().map_entry:
            value_field = message_type.fields_by_name["value"]
            out[field.json_name] = {str(key): _single(value_field, item) for key, item in value.items()}
        elif field.is_repeated:
            out[field.json_name] = [_single(field, item) for item in value]
        else:
            out[field.json_name] = _single(field, value)
    return out


def _single(field: FieldDescriptor, value: Any) -> Any:
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        return proto_json(value)
    if kind == FieldDescriptor.TYPE_ENUM:
        number = field.enum_type.values_by_number.get(value)
        return number.name if number is not None else value
    if kind in _INT64:
        return str(value)
    if kind == FieldDescriptor.TYPE_BYTES:
        return base64.b64encode(value).decode("ascii")
    if kind == FieldDescriptor.TYPE_DOUBLE and math.isfinite(value):
        return _number(value)
    if kind in _FLOATS:  # float32 (printed shortest) and non-finite doubles ("NaN", "Infinity"): rare
        return plain_json(MessageToDict(_wrapped(field, value)))
    return value


def _value(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return _number(value.number_value)
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return {key: _value(item) for key, item in value.struct_value.fields.items()}
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
