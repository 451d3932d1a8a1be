#!/usr/bin/env python3
"""pydantic v2 validation errors triggered for real, pasted to errdex explain.

Each case validates a bad value with the installed pydantic; the report it
prints (`1 validation error for ...`, the location, the message with
`[type=..., input_value=..., input_type=...]`, the docs URL) is pasted to
`errdex explain --json` against a catalog of pydantic-core's source. The
top match is right when one of its sites is the ErrorType arm the report's
type names (`int_parsing` is `ErrorType::IntParsing`), read from the
catalog's own site table. Scored twice: the whole report, and the message
line alone (no `[type=...]`: the template has to decide).

  python bench/eval/pydantic_cases.py --errdex build/src/cli/errdex --db pcore.db

Needs the Python that has pydantic installed (/root/.pyenv/versions/3.11.7).
"""
import argparse
import collections
import datetime
import decimal
import enum
import json
import re
import sqlite3
import subprocess
import sys
import typing
import uuid
from typing import Annotated, Any, Callable, Literal, Optional, Union

import pydantic
import pydantic_core
from pydantic import (AnyUrl, BaseModel, ConfigDict, Field, StrictBool, StrictBytes, StrictFloat,
                      StrictInt, StrictStr, TypeAdapter, ValidationError, conlist)
from pydantic.dataclasses import dataclass as pyd_dataclass


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)
    a: int = 1


class FrozenField(BaseModel):
    a: int = Field(default=1, frozen=True)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int


class Inner(BaseModel):
    a: int


class Cat(BaseModel):
    kind: Literal["cat"]


class Dog(BaseModel):
    kind: Literal["dog"]


@pyd_dataclass
class DC:
    a: int


def adapter(tp, value, **kw):
    return lambda: TypeAdapter(tp).validate_python(value, **kw)


def json_adapter(tp, text):
    return lambda: TypeAdapter(tp).validate_json(text)


def frozen_instance():
    Frozen().a = 2


def frozen_field():
    FrozenField().a = 2


def args_call(f, *a, **k):
    return lambda: pydantic.validate_call(f)(*a, **k)


def two(a: int, b: int):
    return a + b


def kwonly(*, a: int):
    return a


def posonly(a: int, /):
    return a


def value_error(v):
    raise ValueError("must be positive")


def assertion(v):
    assert v > 0, "v is not positive"
    return v


# (expected type, trigger)
CASES = [
    ("missing", lambda: Inner()),
    ("extra_forbidden", lambda: Strict(a=1, b=2)),
    ("frozen_instance", frozen_instance),
    ("frozen_field", frozen_field),
    ("model_type", adapter(Inner, 3)),
    ("dataclass_type", adapter(DC, 3)),
    ("none_required", adapter(None, 3)),
    ("greater_than", adapter(Annotated[int, Field(gt=5)], 3)),
    ("greater_than_equal", adapter(Annotated[int, Field(ge=5)], 3)),
    ("less_than", adapter(Annotated[int, Field(lt=5)], 9)),
    ("less_than_equal", adapter(Annotated[int, Field(le=5)], 9)),
    ("multiple_of", adapter(Annotated[int, Field(multiple_of=5)], 9)),
    ("finite_number", adapter(Annotated[float, Field(allow_inf_nan=False)], float("inf"))),
    ("too_short", adapter(Annotated[list[int], Field(min_length=3)], [1])),
    ("too_long", adapter(Annotated[list[int], Field(max_length=1)], [1, 2, 3])),
    ("iterable_type", adapter(typing.Iterable[int], 3)),
    ("string_type", adapter(str, 3)),
    ("string_too_short", adapter(Annotated[str, Field(min_length=3)], "a")),
    ("string_too_long", adapter(Annotated[str, Field(max_length=1)], "abc")),
    ("string_pattern_mismatch", adapter(Annotated[str, Field(pattern=r"^\d+$")], "abc")),
    ("enum", adapter(Color, 7)),
    ("dict_type", adapter(dict[str, int], 3)),
    ("list_type", adapter(list[int], {"a": 1})),
    ("tuple_type", adapter(tuple[int, int], {"a": 1})),
    ("set_type", adapter(set[int], {"a": 1})),
    ("frozen_set_type", adapter(frozenset[int], {"a": 1})),
    ("bool_type", adapter(StrictBool, "yes")),
    ("bool_parsing", adapter(bool, "maybe")),
    ("int_type", adapter(int, None)),
    ("int_parsing", adapter(int, "abc")),
    ("int_from_float", adapter(int, 1.5)),
    ("float_type", adapter(float, None)),
    ("float_parsing", adapter(float, "abc")),
    ("bytes_type", adapter(bytes, 3)),
    ("bytes_too_short", adapter(Annotated[bytes, Field(min_length=3)], b"a")),
    ("bytes_too_long", adapter(Annotated[bytes, Field(max_length=1)], b"abc")),
    ("value_error", adapter(Annotated[int, pydantic.AfterValidator(value_error)], 3)),
    ("assertion_error", adapter(Annotated[int, pydantic.AfterValidator(assertion)], -3)),
    ("literal_error", adapter(Literal["a", "b"], "c")),
    ("date_type", adapter(datetime.date, None)),
    ("date_parsing", json_adapter(datetime.date, '"2020-13-45"')),
    ("date_from_datetime_parsing", adapter(datetime.date, "not a date")),
    ("date_from_datetime_inexact", adapter(datetime.date, datetime.datetime(2020, 1, 1, 5))),
    ("date_past", adapter(pydantic.PastDate, datetime.date(2999, 1, 1))),
    ("date_future", adapter(pydantic.FutureDate, datetime.date(2000, 1, 1))),
    ("time_type", adapter(datetime.time, None)),
    ("time_parsing", adapter(datetime.time, "25:99")),
    ("datetime_type", adapter(datetime.datetime, None)),
    ("datetime_parsing", json_adapter(datetime.datetime, '"2020-01-01T99:00"')),
    ("datetime_from_date_parsing", adapter(datetime.datetime, "not a datetime")),
    ("datetime_past", adapter(pydantic.PastDatetime, datetime.datetime(2999, 1, 1))),
    ("datetime_future", adapter(pydantic.FutureDatetime, datetime.datetime(2000, 1, 1))),
    ("timezone_naive", adapter(pydantic.NaiveDatetime, datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))),
    ("timezone_aware", adapter(pydantic.AwareDatetime, datetime.datetime(2020, 1, 1))),
    ("time_delta_type", adapter(datetime.timedelta, None)),
    ("time_delta_parsing", adapter(datetime.timedelta, "forever")),
    ("is_instance_of", adapter(pydantic.InstanceOf[Color], 3)),
    ("is_subclass_of", adapter(type[Color], int)),
    ("callable_type", adapter(Callable, 3)),
    ("union_tag_invalid", adapter(Annotated[Union[Cat, Dog], Field(discriminator="kind")], {"kind": "cow"})),
    ("union_tag_not_found", adapter(Annotated[Union[Cat, Dog], Field(discriminator="kind")], {"x": 1})),
    ("missing_argument", args_call(two, 1)),
    ("unexpected_keyword_argument", args_call(two, 1, 2, c=3)),
    ("missing_keyword_only_argument", args_call(kwonly)),
    ("unexpected_positional_argument", args_call(two, 1, 2, 3)),
    ("missing_positional_only_argument", args_call(posonly)),
    ("multiple_argument_values", args_call(two, 1, 2, a=3)),
    ("url_type", adapter(AnyUrl, 3)),
    ("url_parsing", adapter(AnyUrl, "not a url")),
    ("url_scheme", adapter(pydantic.HttpUrl, "ftp://example.com")),
    ("uuid_type", adapter(uuid.UUID, 3)),
    ("uuid_parsing", adapter(uuid.UUID, "not-a-uuid")),
    ("uuid_version", adapter(pydantic.UUID4, uuid.uuid1())),
    ("decimal_type", adapter(decimal.Decimal, [1])),
    ("decimal_parsing", adapter(decimal.Decimal, "abc")),
    ("decimal_max_digits", adapter(Annotated[decimal.Decimal, Field(max_digits=3)], decimal.Decimal("12345"))),
    ("decimal_max_places", adapter(Annotated[decimal.Decimal, Field(decimal_places=1)], decimal.Decimal("1.234"))),
    ("decimal_whole_digits", adapter(Annotated[decimal.Decimal, Field(max_digits=4, decimal_places=3)], decimal.Decimal("123.4"))),
    ("complex_type", adapter(complex, [1])),
    ("complex_str_parsing", adapter(complex, "not complex")),
    ("json_invalid", json_adapter(int, "{not json")),
    ("json_type", lambda: TypeAdapter(pydantic.Json[int]).validate_python(3)),
    ("string_sub_type", adapter(StrictStr, type("S", (str,), {})("x"), strict=True)),
    ("int_parsing_size", adapter(int, "1" * 5000)),
    ("invalid_key", lambda: Inner.model_validate({1: 1, "a": 1})),
    ("set_item_not_hashable", adapter(set[Any], [[1]])),
    ("arguments_type", lambda: pydantic.validate_call(two).__pydantic_validator__.validate_python(3)),
]


def trigger(expected, fn):
    try:
        fn()
    except ValidationError as e:
        errors = e.errors()
        return str(e), [er["type"] for er in errors]
    except Exception as e:  # a case that does not raise what it means to
        return None, [f"{type(e).__name__}: {e}"]
    return None, ["no error"]


def snake(camel):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", camel).lower()


def variants_of(db, ids):
    """error id -> snake_case names of the variants its sites are written as."""
    con = sqlite3.connect(db)
    out = collections.defaultdict(set)
    q = ("SELECT e.id, s.exception_written FROM error e JOIN site s ON s.error_pk = e.pk "
         "WHERE e.id IN (%s)" % ",".join("?" * len(ids)))
    for eid, written in con.execute(q, list(ids)):
        if "::" in written:
            out[eid].add(snake(written.rsplit("::", 1)[1]))
    return out


def explain(errdex, db, text):
    r = subprocess.run([errdex, "explain", "--json", "--db", db, "--top", "5", "-"], input=text,
                       capture_output=True, text=True, timeout=60)
    doc = json.loads(r.stdout)
    return [m["id"] for m in doc.get("matches", [])], doc.get("input") or {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--errdex", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--show", action="store_true", help="print every case")
    args = ap.parse_args()
    print(f"pydantic {pydantic.VERSION}, pydantic_core {pydantic_core.__version__}")
    rows = []
    seen = set()
    for expected, fn in CASES:
        report, types = trigger(expected, fn)
        if report is None or types[0] != expected:
            print(f"  not triggered: {expected}: got {types[0] if types else None}")
            continue
        if expected in seen:
            continue
        seen.add(expected)
        full, inp = explain(args.errdex, args.db, report)
        # The message alone: the report's entry line without `[type=...]`.
        line = next(l for l in report.splitlines() if "[type=" in l)
        bare = re.sub(r"\s*\[type=.*\]\s*$", "", line).strip()
        alone, _ = explain(args.errdex, args.db, bare)
        rows.append((expected, report, full, alone, bare))
    ids = {i for r in rows for i in r[2][:1] + r[3][:1]}
    variants = variants_of(args.db, ids) if ids else {}
    right_full = right_alone = 0
    # Arms with the same text are one error with a site per arm
    # (`Input should be {expected}` is Enum and LiteralError): such a top
    # match is right but does not tell the arm; counted apart.
    shared = 0
    misses = []
    for expected, report, full, alone, bare in rows:
        f_ok = bool(full) and expected in variants.get(full[0], set())
        a_ok = bool(alone) and expected in variants.get(alone[0], set())
        right_full += f_ok
        right_alone += a_ok
        shared += f_ok and len(variants.get(full[0], set())) > 1
        if not f_ok or not a_ok:
            misses.append((expected, f_ok, a_ok, bare, sorted(variants.get(alone[0], [])) if alone else []))
        if args.show:
            print(f"  {expected:34} report {'ok' if f_ok else 'MISS'}  message {'ok' if a_ok else 'MISS'}")
    n = len(rows)
    print(f"distinct error types triggered: {n}")
    print(f"top-1 right arm, whole report: {right_full}/{n} = {100.0 * right_full / max(n, 1):.1f}%")
    print(f"top-1 right arm, message only: {right_alone}/{n} = {100.0 * right_alone / max(n, 1):.1f}%")
    print(f"  of the right ones, an error whose text several arms share: {shared}")
    for expected, f_ok, a_ok, bare, got in misses:
        print(f"  miss {expected}: report {'ok' if f_ok else 'miss'}, message {'ok' if a_ok else 'miss'}"
              f" ({bare!r} -> {got})")


if __name__ == "__main__":
    main()
