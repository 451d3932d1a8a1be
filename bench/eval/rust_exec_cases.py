#!/usr/bin/env python3
"""Executed errors raised by Rust code inside installed Python packages.

Builds programs that misuse three packages whose errors are raised by Rust
(PyO3 or raw CPython FFI) the way a user meets them:

- orjson (`loads` of invalid JSON documents of many shapes, as str, bytes,
  bytearray and memoryview; `dumps` of unsupported types, non-str keys, big
  ints, surrogates, recursion, `default=` raising or returning the
  unsupported, bad `option=` values and bad calls);
- rpds (every method of HashTrieMap, HashTrieSet, List, Queue and Stack on
  an empty and a filled receiver with unsuitable argument lists, operators,
  constructors, hashing of unhashable contents);
- pydantic_core, outside the ValidationError reports `pydantic_cases.py`
  covers: SchemaValidator / SchemaSerializer built from invalid schemas
  (every schema type with each of its keys set to unsuitable values or
  left out, every config key), serialization at run time (`to_python` /
  `to_json` of mismatched values with `warnings='error'`, `to_json` /
  `to_jsonable_python` options), `from_json` (jiter's parse errors, on the
  same documents as orjson), Url / MultiHostUrl `build`, ArgsKwargs,
  `ValidationError.from_exception_data`, PydanticCustomError /
  PydanticKnownError, TzInfo, `validate_*` argument misuse.

One worker process (3 GB address-space limit, 3 s alarm per program) finds
the failures; one program is kept per distinct `Type: message` and at most
--per-shape per message shape (quotes and numbers blanked), as
numpy_cases.py does; a ValidationError report is left out (pydantic_cases.py
scores those) and counted. Each kept program is rerun alone in a fresh
interpreter (`unshare -rn`, a temporary directory, --timeout) and the case
keeps that run's traceback.

Groups, by the innermost frame of the final exception: `rust` (the
program's own line calling the package, or a line of the package's .py that
is not a raise: compiled code raised), `python` (a raise/assert line, or a
`warnings.warn(...)` line, of the package's own .py: the truth is that
line), `other` (a `raise` in the
program itself, e.g. a `default=` function whose error passes through, or a
frame elsewhere: the standard library, pydantic).

    /root/.pyenv/versions/3.11.7/bin/python bench/eval/rust_exec_cases.py \\
        --out /work/rust-eval/cases.jsonl [--jobs 1] [--limit N] [--only orjson,rpds,pydantic_core]

Run it with the interpreter that has orjson, rpds-py and pydantic_core (set
RUST_EXEC_PYTHON to that same interpreter for the subprocesses; default:
the interpreter running this script). Labels and scores: rust_exec_score.py.
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time

PY = os.environ.get("RUST_EXEC_PYTHON", sys.executable)

PRELUDE = """\
import orjson, rpds, pydantic_core, datetime, decimal, enum, uuid, dataclasses, collections, array
import pydantic_core as pc
from pydantic_core import core_schema as cs
from pydantic_core import (SchemaValidator, SchemaSerializer, ValidationError, PydanticCustomError,
                           PydanticKnownError, PydanticSerializationError, Url, MultiHostUrl,
                           ArgsKwargs, TzInfo, to_json, to_jsonable_python, from_json)
from rpds import HashTrieMap, HashTrieSet, List, Queue, Stack
class Color(enum.Enum):
    RED = 1
    GREEN = 2
class Plain:
    pass
class Model:
    pass
@dataclasses.dataclass
class DC:
    a: int = 0
class OddTz(datetime.tzinfo):
    def utcoffset(self, dt):
        return datetime.timedelta(hours=1)
    def dst(self, dt):
        return datetime.timedelta(0)
class BadStr:
    def __str__(self):
        raise ValueError('no str')
def f(v):
    return v
def f_info(v, info):
    return v
def f_wrap(v, handler):
    return handler(v)
def raises(v, *a):
    raise ValueError('boom')
def d_none(o):
    return None
def d_self(o):
    return o
def d_obj(o):
    return object()
def d_raise(o):
    raise TypeError('default refused')
RM = HashTrieMap({'a': 1, 'b': 2})
RS = HashTrieSet([1, 2, 3])
RL = List([1, 2, 3])
RQ = Queue([1, 2])
RK = Stack([1, 2])
REC = []
REC.append(REC)
RECD = {}
RECD['a'] = RECD
"""

# ---------------------------------------------------------------------------
# JSON documents (orjson.loads and pydantic_core.from_json)

_VALID = '{"a": [1, -2.5e3, "x\\u00e9y", true, false, null, {"b": {}}], "c": "d"}'
DOCS = sorted(set([_VALID[:k] for k in range(len(_VALID))]))  # every truncation
DOCS += [
    # bad escapes and strings
    '"\\x"', '"\\u12"', '"\\uZZZZ"', '"\\ud800"', '"\\ud800\\u0041"', '"\\udc00"', '"\\ud800x"',
    '"\\ud83d\\ude00', '"\\', '"\\u', '"a\nb"', '"a\tb"', '"a\x01b"', '"\x1f"', "'a'", '"abc',
    '["\\a"]', '{"\\q": 1}', '"\\/\\b\\f\\n\\r\\t\\\\"x',
    # numbers
    '01', '1.', '.1', '-', '1e', '1e+', '1e-', '+1', '0x1', '1.e5', '-01', '1.5.5', '--1', '-a',
    '1e400', '-1e400', '1' * 400, '1' + '0' * 310 + '.0', '1e-400', '1_000', '0.' + '1' * 800,
    '[1.]', '[-]', '{"a": 1e}', '[0e]', '1ee5', '2.e', '123abc', '-Infinity', 'Infinity', 'NaN',
    'nan', 'inf', '[NaN]', '[Infinity, -Infinity]',
    # literals
    'tru', 'nul', 'fals', 'falsy', 'True', 'None', 'null x', 'n', 't', 'f', 'trUe', 'undefined',
    # structure
    '', ' ', '\n\n', '[1] x', '1 2', '{}{}', '[1],', '[1,]', '{"a":1,}', '{"a" 1}', '{"a":}',
    '{1: 2}', "{'a': 1}", '{"a"}', '{,}', '[,1]', '[1 2]', '{"a":1 "b":2}', ']', '}', ':', ',',
    '[}', '{]', '[1}', '{"a":1]', '{"a"', '{"a":', '{"a":1', '[', '[1', '[1,', '{', '{"',
    '// c\n1', '/* c */ 1', '# c\n1', '[1] // c', '\ufeff[]', '\ufeff', '\x00', '[\x00]',
    '"\u2028"x', '{"a":1}x', '[true false]', '{"a":1,"a":2,}', '[[[[]]]]]', '{"a":{"b":[}}',
    # nesting
    '[' * 128, '[' * 129, '[' * 256, '[' * 1025, '[' * 100000, '{"a":' * 300,
    '[' * 200 + ']' * 200, '[' * 2000 + ']' * 2000, '{"a":' * 2000 + '1' + '}' * 2000,
]
BYTES_DOCS = [
    "b'\\xff'", "b'\"\\xff\"'", "b'\\xc3'", "b'[\\x80]'", "b'\"\\xc0\\xaf\"'", "b'\"\\xed\\xa0\\x80\"'",
    "b'\"\\xf4\\x90\\x80\\x80\"'", "b'{\"\\xfe\": 1}'", "b'\\xef\\xbb\\xbf[1]'", "b'[1]\\xff'",
    "b'\"\\xe2\\x82\"'", "b'\"abc\\xf0\\x9f\"'", "b''", "b'\\x00'",
    "bytearray(b'[1,')", "bytearray(b'\\xff')", "memoryview(b'[1,')", "memoryview(b'\\xff')",
    "memoryview(b'[1, 2]')[::2]", "memoryview(array.array('i', [1, 2]))", "'\\ud800'",
    "'\"\\ud800\"'", "'[\"a\\udfff\"]'", "'{\"\\ud800\": 1}'",
]


def json_programs():
    out = []
    for d in DOCS:
        out.append(("orjson", "loads", f"orjson.loads({d!r})"))
        out.append(("orjson", "loads", f"orjson.loads({d.encode('utf-8', 'surrogatepass')!r})"))
        out.append(("pydantic_core", "from_json", f"from_json({d!r})"))
        out.append(("pydantic_core", "from_json", f"from_json({d!r}, allow_inf_nan=False)"))
        out.append(("pydantic_core", "from_json", f"from_json({d!r}, allow_partial=True)"))
        out.append(("pydantic_core", "from_json", f"from_json({d!r}, allow_partial='trailing-strings')"))
    for b in BYTES_DOCS:
        out.append(("orjson", "loads", f"orjson.loads({b})"))
        out.append(("pydantic_core", "from_json", f"from_json({b})"))
    for extra in ["1", "None", "object()", "[b'1']", "1.5", "{'a': 1}", "Plain()"]:
        out.append(("orjson", "loads", f"orjson.loads({extra})"))
        out.append(("pydantic_core", "from_json", f"from_json({extra})"))
    out += [("orjson", "loads", s) for s in [
        "orjson.loads()", "orjson.loads('1', '2')", "orjson.loads(obj='1')", "orjson.loads('1', x=1)",
        "orjson.JSONDecodeError('x')", "orjson.loads(str)",
    ]]
    out += [("pydantic_core", "from_json", s) for s in [
        "from_json('[1', allow_partial='x')", "from_json('[1', allow_partial=3)",
        "from_json('1', cache_strings='x')", "from_json('1', cache_strings=3)",
        "from_json('1', allow_inf_nan='x')", "from_json()", "from_json('1', bogus=1)",
        "from_json('[\"abc', allow_partial='off')", "from_json('{\"a\": \"b', allow_partial='on')",
        "from_json('{\"a\": 1, \"a\": 2')", "from_json(b'[1', allow_partial=True, cache_strings='keys')",
        "from_json('NaN', allow_inf_nan=False)", "from_json('[1e999]', allow_inf_nan=False)",
    ]]
    return out


# ---------------------------------------------------------------------------
# orjson.dumps

UNSUPPORTED = ["object()", "set()", "{1, 2}", "frozenset()", "1j", "b'x'", "bytearray(b'x')",
               "memoryview(b'x')", "decimal.Decimal('1.5')", "Plain()", "Plain", "f", "len",
               "range(3)", "(x for x in [1])", "iter([1])", "Color", "type", "Ellipsis",
               "NotImplemented", "datetime.timedelta(1)", "collections.deque()", "array.array('i')",
               "slice(1)", "orjson", "BadStr()", "Exception('x')", "RM", "RL", "Url('http://x.com')",
               "dict.keys({})", "{}.items()", "property()", "super()", "OddTz()"]
OPTIONS = ["'x'", "-1", "1.5", "2**20", "2**31", "2**64", "True", "[1]", "orjson.OPT_INDENT_2 | 2**15",
           "object()", "-2**63", "65535", "1 << 12"]


def dumps_programs():
    out = []
    for u in UNSUPPORTED:
        out.append(f"orjson.dumps({u})")
        out.append(f"orjson.dumps([1, {u}])")
        out.append(f"orjson.dumps({{'a': {u}}})")
        out.append(f"orjson.dumps({u}, default=d_obj)")
        out.append(f"orjson.dumps({u}, default=d_raise)")
        out.append(f"orjson.dumps({u}, default=d_self)")
        out.append(f"orjson.dumps({u}, option=orjson.OPT_PASSTHROUGH_DATACLASS)")
    for k in ["1", "None", "(1, 2)", "frozenset()", "1.5", "b'k'", "True", "Plain()", "2**64",
              "-2**63 - 1", "datetime.date(2020, 1, 1)", "uuid.UUID(int=1)", "Color.RED",
              "decimal.Decimal(1)", "'\\ud800'", "datetime.time(1, tzinfo=datetime.timezone.utc)",
              "datetime.datetime(2020, 1, 1, tzinfo=OddTz())", "1j"]:
        out.append(f"orjson.dumps({{{k}: 1}})")
        out.append(f"orjson.dumps({{{k}: 1}}, option=orjson.OPT_NON_STR_KEYS)")
        out.append(f"orjson.dumps({{{k}: 1, 'a': 2}}, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS)")
    for v in ["2**64", "-2**63 - 1", "2**53", "-2**53 - 1", "10**100", "2**63"]:
        out.append(f"orjson.dumps({v})")
        out.append(f"orjson.dumps({v}, option=orjson.OPT_STRICT_INTEGER)")
        out.append(f"orjson.dumps([{v}])")
    for s in ["'\\ud800'", "'a\\udfffb'", "['\\ud800']", "{'k': '\\udc00'}", "{'\\ud800': 1}",
              "'\\ud83d'"]:
        out.append(f"orjson.dumps({s})")
        out.append(f"orjson.dumps({s}, option=orjson.OPT_NON_STR_KEYS)")
    for t in ["datetime.time(1, tzinfo=datetime.timezone.utc)",
              "datetime.time(1, tzinfo=OddTz())",
              "datetime.datetime(2020, 1, 1, tzinfo=OddTz())",
              "datetime.datetime(2020, 1, 1, tzinfo=TzInfo(3600))",
              "datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))"]:
        out.append(f"orjson.dumps({t})")
        out.append(f"orjson.dumps([{t}], option=orjson.OPT_NAIVE_UTC)")
        out.append(f"orjson.dumps({t}, option=orjson.OPT_PASSTHROUGH_DATETIME)")
    for r in ["REC", "RECD", "[REC]", "{'x': RECD}"]:
        out.append(f"orjson.dumps({r})")
        out.append(f"orjson.dumps({r}, option=orjson.OPT_INDENT_2)")
    deep = ["eval('[' * 255 + ']' * 255)",
            "eval('[' * 254 + ']' * 254)", "eval('[' * 1000 + ']' * 1000)",
            "eval('{\"a\":' * 300 + '1' + '}' * 300)"]
    for d in deep:
        out.append(f"orjson.dumps({d})")
    for o in OPTIONS:
        out.append(f"orjson.dumps(1, option={o})")
        out.append(f"orjson.dumps(1, None, {o})")
    out += [
        "orjson.dumps()", "orjson.dumps(1, default=f, option=1, bogus=2)", "orjson.dumps(1, bogus=2)",
        "orjson.dumps(1, f, default=f)", "orjson.dumps(1, None, 0, option=0)",
        "orjson.dumps(1, None, 0, 5)", "orjson.dumps(obj=1)", "orjson.dumps(1, default=5)",
        "orjson.dumps(object(), default=5)", "orjson.dumps(object(), default=d_none)",
        "orjson.dumps(Plain(), default=lambda o: Plain())", "orjson.dumps(Plain(), default=lambda o: [Plain()])",
        "orjson.dumps(Plain(), default=lambda o: {1: 2})", "orjson.dumps(Plain(), default=lambda o: 2**70)",
        "orjson.dumps(DC(), option=orjson.OPT_PASSTHROUGH_DATACLASS)",
        "orjson.dumps(DC(a=object()))", "orjson.dumps(DC(a=2**70))", "orjson.dumps(DC(a=REC))",
        "orjson.dumps(Color.RED, option=orjson.OPT_PASSTHROUGH_SUBCLASS)",
        "orjson.dumps(uuid.UUID(int=1), option=orjson.OPT_PASSTHROUGH_DATETIME)",
        "orjson.dumps([1], option=orjson.OPT_SERIALIZE_NUMPY)",
        "orjson.dumps(type('S', (str,), {})('x'), option=orjson.OPT_PASSTHROUGH_SUBCLASS)",
        "orjson.dumps(type('I', (int,), {})(1), option=orjson.OPT_PASSTHROUGH_SUBCLASS)",
        "orjson.dumps(type('D', (dict,), {})(), option=orjson.OPT_PASSTHROUGH_SUBCLASS)",
        "orjson.dumps(type('L', (list,), {})(), option=orjson.OPT_PASSTHROUGH_SUBCLASS)",
        "orjson.dumps({'a': 1}, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME, default=d_raise) or orjson.dumps({datetime.date(2020,1,1): 1}, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME)",
        "orjson.dumps({Plain(): 1}, option=orjson.OPT_NON_STR_KEYS, default=f)",
        "orjson.dumps({1: 1, '1': 2}, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS)",
        "orjson.dumps({'b': 1, 1: 2}, option=orjson.OPT_SORT_KEYS)",
        "orjson.JSONEncodeError.__init__(5)",
    ]
    return [("orjson", "dumps", s) for s in out]


# ---------------------------------------------------------------------------
# rpds

RPDS_ARGS = ["", "'x'", "None", "[1]", "{}", "1, 2", "'x', 'y', 'z'", "5", "-9", "object()",
             "[[1]]", "[([1], 2)]", "key=1", "1, [2]", "iter([1])"]
RPDS_RECEIVERS = {"HashTrieMap": ["HashTrieMap()", "RM"], "HashTrieSet": ["HashTrieSet()", "RS"],
                  "List": ["List()", "RL"], "Queue": ["Queue()", "RQ"], "Stack": ["Stack()", "RK"]}


def rpds_programs():
    import rpds
    out = []
    for cls, recvs in RPDS_RECEIVERS.items():
        typ = getattr(rpds, cls)
        for a in RPDS_ARGS:
            out.append(f"{cls}({a})")
        for name in sorted(dir(typ)):
            if name.startswith("__") and name not in (
                    "__getitem__", "__contains__", "__len__", "__hash__", "__reduce__", "__or__",
                    "__and__", "__sub__", "__xor__", "__lt__", "__le__", "__gt__", "__ge__",
                    "__eq__", "__iter__", "__reversed__", "__class_getitem__", "__repr__"):
                continue
            attr = getattr(typ, name)
            for recv in recvs:
                if not callable(attr):
                    out.append(f"{recv}.{name}")
                    continue
                for a in RPDS_ARGS:
                    out.append(f"{recv}.{name}({a})")
        for recv in recvs:
            for op in ["|", "&", "-", "^", "<", "<=", ">", "+", "*", "@"]:
                for other in ["5", "[1]", "{1: 2}", "'x'", "HashTrieMap()", "HashTrieSet([1])", "List([1])"]:
                    out.append(f"{recv} {op} {other}")
            out += [f"{recv}[0]", f"{recv}['zz']", f"{recv}[[1]]", f"hash({recv})", f"{recv}[1:2]",
                    f"[1] in {recv}", f"len({recv}, 1)", f"next(iter({recv}))"]
    out += [
        "HashTrieMap({'a': [1]}).__hash__()", "hash(HashTrieMap({'a': [1]}))",
        "hash(HashTrieMap({'a': {}}))", "hash(List([{}]))", "hash(Queue([{}]))", "hash(Stack([{}]))",
        "hash(List([1, [2]]))", "hash(Queue([1, 2, set()]))", "hash(Stack([1, [2]]))",
        "hash(HashTrieMap({1: {'x': 1}}))", "hash(HashTrieSet([1]) | HashTrieSet([2])) and hash(HashTrieMap({'k': [1, 2]}))",
        "HashTrieMap.fromkeys([[1]])", "HashTrieMap.fromkeys([1], [2]).__hash__() and hash(HashTrieMap.fromkeys([1], [2]))",
        "HashTrieMap.fromkeys(5)", "HashTrieMap.convert(5)", "HashTrieMap.convert([[1, 2, 3]])",
        "RM.keys() | 5", "RM.keys() & 5", "RM.values()[0]", "RM.items() - 5", "RM.keys() ^ 5",
        "RM.keys() < 5", "RM.items() | [[1]]", "RM.keys().intersection(5)", "RM.keys().union(5)",
        "RM.keys() & [[1]]", "RM.items() & 5", "RM.items() | 5", "hash(RM.keys())",
        "RM.update({'a': 1}, {'b': 2}, 3)", "RM.update(5)", "RM.update([[1]])", "RM.insert('a')",
        "RM.remove('zz')", "RM.remove(['zz'])", "RM.remove(5)", "RM.remove(None)",
        "RM.remove(('t', 1))", "RM.remove(1.5)", "RM.remove(b'k')", "RM['zz']", "RM[None]",
        "RM[5]", "RM[('t', 1)]", "RS.remove(99)", "RS.remove('zz')", "RS.remove(None)",
        "RS.remove((1, 2))", "RS.remove(frozenset())", "HashTrieSet().remove(b'k')",
        "RS.insert([1])", "RS.union(5)", "RS.union([[1]])", "RS.intersection(5)", "RS.difference(5)",
        "RS.symmetric_difference(5)", "RS.update(5)", "RS.update([[1]])",
        "RL.push_front()", "List([]).rest.first", "List().drop_first()", "List(1, 2, 3)",
        "List([1], [2])", "Queue(1, 2)", "Queue([1]).dequeue().dequeue()", "Queue().peek",
        "Stack().peek()", "Stack().pop()", "Stack([1]).pop().pop()", "Stack(1, 2)",
        "List([1]).first.x", "List.__class_getitem__()", "HashTrieMap[int, int]()",
        "HashTrieMap(RM, x=1, **{'a': 2})", "HashTrieMap({'a': 1}, {'b': 2})",
        "HashTrieMap([(1,)])", "HashTrieMap([(1, 2, 3)])", "HashTrieMap(['ab', 'cd', 'e'])",
        "HashTrieSet(5)", "HashTrieSet([1], [2])", "HashTrieSet([{}])", "HashTrieSet([1, [2]])",
        "RM.__reduce__(5)", "pickle_dummy = RS.__reduce__()[0](5)",
        "RM.get()", "RM.get([1])", "RM.discard([1])", "RS.discard([1])",
        "HashTrieMap({'a': 1}).keys().isdisjoint(5)",
    ]
    return [("rpds", "rpds", s) for s in out]


# ---------------------------------------------------------------------------
# pydantic_core

# A minimal valid schema of every CoreSchemaType (source text).
MIN_SCHEMA = {
    "any": "{'type': 'any'}",
    "none": "{'type': 'none'}",
    "bool": "{'type': 'bool'}",
    "int": "{'type': 'int'}",
    "float": "{'type': 'float'}",
    "decimal": "{'type': 'decimal'}",
    "str": "{'type': 'str'}",
    "bytes": "{'type': 'bytes'}",
    "date": "{'type': 'date'}",
    "time": "{'type': 'time'}",
    "datetime": "{'type': 'datetime'}",
    "timedelta": "{'type': 'timedelta'}",
    "complex": "{'type': 'complex'}",
    "uuid": "{'type': 'uuid'}",
    "url": "{'type': 'url'}",
    "multi-host-url": "{'type': 'multi-host-url'}",
    "callable": "{'type': 'callable'}",
    "missing-sentinel": "{'type': 'missing-sentinel'}",
    "invalid": "{'type': 'invalid'}",
    "literal": "{'type': 'literal', 'expected': [1, 'a']}",
    "enum": "{'type': 'enum', 'cls': Color, 'members': list(Color)}",
    "is-instance": "{'type': 'is-instance', 'cls': int}",
    "is-subclass": "{'type': 'is-subclass', 'cls': int}",
    "list": "{'type': 'list', 'items_schema': {'type': 'int'}}",
    "tuple": "{'type': 'tuple', 'items_schema': [{'type': 'int'}]}",
    "set": "{'type': 'set', 'items_schema': {'type': 'int'}}",
    "frozenset": "{'type': 'frozenset', 'items_schema': {'type': 'int'}}",
    "generator": "{'type': 'generator', 'items_schema': {'type': 'int'}}",
    "dict": "{'type': 'dict', 'keys_schema': {'type': 'str'}, 'values_schema': {'type': 'int'}}",
    "function-after": "{'type': 'function-after', 'function': {'type': 'no-info', 'function': f}, "
                      "'schema': {'type': 'int'}}",
    "function-before": "{'type': 'function-before', 'function': {'type': 'no-info', 'function': f}, "
                       "'schema': {'type': 'int'}}",
    "function-wrap": "{'type': 'function-wrap', 'function': {'type': 'no-info', 'function': f_wrap}, "
                     "'schema': {'type': 'int'}}",
    "function-plain": "{'type': 'function-plain', 'function': {'type': 'no-info', 'function': f}}",
    "default": "{'type': 'default', 'schema': {'type': 'int'}, 'default': 1}",
    "nullable": "{'type': 'nullable', 'schema': {'type': 'int'}}",
    "union": "{'type': 'union', 'choices': [{'type': 'int'}, {'type': 'str'}]}",
    "tagged-union": "{'type': 'tagged-union', 'choices': {'a': {'type': 'typed-dict', 'fields': "
                    "{'k': {'type': 'typed-dict-field', 'schema': {'type': 'str'}}}}}, "
                    "'discriminator': 'k'}",
    "chain": "{'type': 'chain', 'steps': [{'type': 'str'}, {'type': 'int'}]}",
    "lax-or-strict": "{'type': 'lax-or-strict', 'lax_schema': {'type': 'int'}, "
                     "'strict_schema': {'type': 'int'}}",
    "json-or-python": "{'type': 'json-or-python', 'json_schema': {'type': 'int'}, "
                      "'python_schema': {'type': 'int'}}",
    "typed-dict": "{'type': 'typed-dict', 'fields': {'a': {'type': 'typed-dict-field', "
                  "'schema': {'type': 'int'}}}}",
    "model-fields": "{'type': 'model-fields', 'fields': {'a': {'type': 'model-field', "
                    "'schema': {'type': 'int'}}}}",
    "model": "{'type': 'model', 'cls': Model, 'schema': {'type': 'model-fields', 'fields': "
             "{'a': {'type': 'model-field', 'schema': {'type': 'int'}}}}}",
    "dataclass-args": "{'type': 'dataclass-args', 'dataclass_name': 'DC', 'fields': "
                      "[{'type': 'dataclass-field', 'name': 'a', 'schema': {'type': 'int'}}]}",
    "dataclass": "{'type': 'dataclass', 'cls': DC, 'fields': ['a'], 'schema': {'type': "
                 "'dataclass-args', 'dataclass_name': 'DC', 'fields': [{'type': 'dataclass-field', "
                 "'name': 'a', 'schema': {'type': 'int'}}]}}",
    "arguments": "{'type': 'arguments', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}}]}",
    "arguments-v3": "{'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': "
                    "{'type': 'int'}}]}",
    "call": "{'type': 'call', 'function': f, 'arguments_schema': {'type': 'arguments', "
            "'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}}]}}",
    "custom-error": "{'type': 'custom-error', 'schema': {'type': 'int'}, 'custom_error_type': 'x', "
                    "'custom_error_message': 'bad x'}",
    "json": "{'type': 'json'}",
    "definitions": "{'type': 'definitions', 'schema': {'type': 'definition-ref', 'schema_ref': 'r'}, "
                   "'definitions': [{'type': 'int', 'ref': 'r'}]}",
    "definition-ref": "{'type': 'definitions', 'schema': {'type': 'definition-ref', 'schema_ref': 'r'}, "
                      "'definitions': [{'type': 'int', 'ref': 'r'}]}",
}

BAD_VALUES = ["object()", "'x'", "-1", "[]", "{}", "{'type': 'foo'}", "1.5", "None", "[1, 'x']",
              "True", "{'type': 'int', 'gt': 'x'}", "['x']", "{'x': 1}", "''"]


def schema_keys():
    """schema type -> its TypedDict's keys (from pydantic_core.core_schema)."""
    import typing
    from pydantic_core import core_schema as cs
    keys = {}
    for name in dir(cs):
        obj = getattr(cs, name)
        if not (isinstance(obj, type) and issubclass(obj, dict) and hasattr(obj, "__annotations__")):
            continue
        ann = obj.__annotations__
        t = ann.get("type")
        text = t.__forward_arg__ if isinstance(t, typing.ForwardRef) else str(t)
        m = re.search(r"Literal\[['\"]([\w-]+)['\"]\]", text)
        if m and m.group(1) in MIN_SCHEMA:
            keys.setdefault(m.group(1), set()).update(k for k in ann if k != "type")
    return keys


def config_keys():
    from pydantic_core import core_schema as cs
    return sorted(cs.CoreConfig.__annotations__)


SER_SCHEMAS = [
    "{'type': 'plain', 'function': f}",
    "{'type': 'function-plain', 'function': f}",
    "{'type': 'function-plain', 'function': raises}",
    "{'type': 'function-plain', 'function': f, 'info_arg': 'x'}",
    "{'type': 'function-plain', 'function': f, 'return_schema': {'type': 'foo'}}",
    "{'type': 'function-plain', 'function': f, 'when_used': 'sometimes'}",
    "{'type': 'function-wrap', 'function': f_wrap, 'schema': {'type': 'foo'}}",
    "{'type': 'function-wrap'}",
    "{'type': 'function-plain'}",
    "{'type': 'format', 'formatting_string': 5}",
    "{'type': 'format'}",
    "{'type': 'format', 'formatting_string': '{'}",
    "{'type': 'to-string', 'when_used': 'never-ever'}",
    "{'type': 'model'}",
    "{'type': 'model', 'cls': Model, 'schema': {'type': 'foo'}}",
    "{'type': 'include-exclude-sequence', 'include': 5}",
    "{'type': 'include-exclude-dict', 'exclude': 5}",
    "{'type': 'simple', 'when_used': 'x'}",
    "{'type': 'simple'}",
    "{'type': 'foo'}",
    "5",
    "'x'",
]

SER_VALUES = ["'x'", "1", "1.5", "None", "[1]", "{'a': 1}", "b'x'", "object()", "Plain()",
              "datetime.date(2020, 1, 1)", "(1, 2)", "{1, 2}", "Url('http://x.com')", "DC()",
              "float('nan')", "Color.RED", "uuid.UUID(int=1)", "decimal.Decimal('1.5')", "2**70",
              "datetime.timedelta(1)", "BadStr()", "REC", "RECD", "1j", "Model()"]
SER_TARGETS = ["int", "str", "float", "bool", "bytes", "list", "dict", "tuple", "set", "date",
               "datetime", "timedelta", "url", "uuid", "decimal", "enum", "typed-dict", "model",
               "dataclass", "literal", "nullable", "union", "none", "complex", "any", "json"]

TO_JSON_OPTS = ["indent='x'", "indent=-1", "include=5", "exclude=5", "include={'a': 5}",
                "exclude={'a': 'x'}", "include=[1]", "by_alias='x'", "round_trip='x'",
                "timedelta_mode='x'", "temporal_mode='x'", "bytes_mode='x'", "inf_nan_mode='x'",
                "serialize_unknown='x'", "fallback=5", "fallback=raises", "fallback=d_obj",
                "context=5", "ensure_ascii='x'", "exclude_none='x'", "bogus=1", "warnings='x'",
                "serialize_as_any='x'", "polymorphic_serialization='x'", "inf_nan_mode=None"]
TO_JSON_VALUES = ["object()", "Plain()", "{1j: 1}", "{(1, 2): 1}", "{Plain(): 1}", "REC", "RECD",
                  "float('nan')", "float('inf')", "b'\\xff'", "BadStr()", "[object()]",
                  "{'a': object()}", "datetime.timedelta(1)", "b'x'", "DC(a=object())",
                  "{frozenset(): 1}", "'\\ud800'", "2**70", "{None: 1}", "{b'\\xff': 1}",
                  "Color", "iter([1])", "(x for x in [object()])", "type", "OddTz()",
                  "datetime.datetime(2020, 1, 1, tzinfo=OddTz())", "TzInfo(1)",
                  "decimal.Decimal('NaN')", "{'a': {'b': [object()]}}", "array.array('i')",
                  "Url('http://x.com')"]

VALIDATOR_CALLS = [
    "SchemaValidator({'type': 'int'}).validate_python(1, strict='x')",
    "SchemaValidator({'type': 'int'}).validate_python(1, from_attributes='x')",
    "SchemaValidator({'type': 'int'}).validate_python(1, context=5, by_alias='x')",
    "SchemaValidator({'type': 'int'}).validate_python(1, by_alias=False, by_name=False)",
    "SchemaValidator({'type': 'model-fields', 'fields': {}}).validate_python({}, by_alias=False, by_name=False)",
    "SchemaValidator({'type': 'int'}).validate_python(1, allow_partial='x')",
    "SchemaValidator({'type': 'int'}).validate_python(1, self_instance=5)",
    "SchemaValidator({'type': 'int'}).validate_python(1, experimental_allow_partial='x')",
    "SchemaValidator({'type': 'int'}).validate_python()",
    "SchemaValidator({'type': 'int'}).validate_json(5)",
    "SchemaValidator({'type': 'int'}).validate_json('1', strict='x')",
    "SchemaValidator({'type': 'int'}).validate_json('1', by_alias=False, by_name=False)",
    "SchemaValidator({'type': 'int'}).validate_strings(5)",
    "SchemaValidator({'type': 'int'}).validate_strings('1', allow_partial='x')",
    "SchemaValidator({'type': 'int'}).validate_assignment(1, 'a', 2)",
    "SchemaValidator({'type': 'str'}).validate_assignment('x', 'a', 2)",
    "SchemaValidator({'type': 'list'}).validate_assignment([], 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["model"] + ").validate_assignment(5, 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["model-fields"] + ").validate_assignment(5, 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["model-fields"] + ").validate_assignment({}, 5, 2)",
    "SchemaValidator(" + MIN_SCHEMA["typed-dict"] + ").validate_assignment({}, 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["dataclass"] + ").validate_assignment(5, 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["dataclass-args"] + ").validate_assignment(5, 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["dataclass-args"] + ").validate_assignment({}, 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["dataclass-args"] + ").validate_assignment(({}, None), 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["dataclass-args"] + ").validate_assignment(({'a': 1}, 5), 'a', 2)",
    "SchemaValidator(" + MIN_SCHEMA["model"] + ").validate_assignment(Model(), 'a', 2)",
    "SchemaValidator({'type': 'default', 'schema': {'type': 'int'}, 'default_factory': raises}).get_default_value()",
    "SchemaValidator({'type': 'default', 'schema': {'type': 'int'}, 'default_factory': lambda d: d, 'default_factory_takes_data': True}).get_default_value()",
    "SchemaValidator({'type': 'int'}).get_default_value(strict='x')",
    "SchemaValidator({'type': 'default', 'schema': {'type': 'int'}, 'default_factory': 5}).validate_python(pc.PydanticUndefined)",
    "SchemaValidator({'type': 'int'}, config=5)",
    "SchemaValidator(5)",
    "SchemaValidator('int')",
    "SchemaValidator()",
    "SchemaValidator({'type': 'int'}, 5, 6, 7)",
    "SchemaSerializer(5)",
    "SchemaSerializer({'type': 'int'}, config=5)",
    "SchemaSerializer({'type': 'int'}).to_python(1, mode='x')",
    "SchemaSerializer({'type': 'int'}).to_json(1, indent='x')",
    "SchemaSerializer({'type': 'int'}).to_python(1, include=5)",
    "SchemaSerializer({'type': 'int'}).to_python(1, warnings='x')",
    "SchemaSerializer({'type': 'int'}).to_python(1, context=5, by_alias='x')",
    "SchemaSerializer({'type': 'int'}).to_python(1, round_trip='x')",
    "SchemaSerializer({'type': 'int'}).to_json(1, fallback=5)",
    "SchemaSerializer({'type': 'any'}).to_python(object(), mode='json')",
    "SchemaSerializer({'type': 'any'}).to_json(object())",
    "SchemaSerializer({'type': 'any'}).to_json(object(), fallback=raises)",
    "SchemaSerializer({'type': 'any'}).to_json(REC)",
    "SchemaSerializer({'type': 'any'}).to_python(REC, mode='json')",
    "SchemaSerializer({'type': 'any'}).to_python(REC)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-plain', 'function': raises}}).to_python(1)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-plain', 'function': raises}}).to_json(1)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-plain', 'function': lambda v: object()}}).to_json(1)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-plain', 'function': lambda v, i: 1/0, 'info_arg': True}}).to_json(1)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-wrap', 'function': lambda v, h: h(object()), 'schema': {'type': 'int'}}}).to_json(1, warnings='error')",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-wrap', 'function': lambda v, h: h(1, 2, 3)}}).to_json(1)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-wrap', 'function': lambda v, h: h.bogus}}).to_json(1)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'format', 'formatting_string': 'x'}}).to_json(1)",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'format', 'formatting_string': '{'}}).to_json(1)",
    "SchemaSerializer({'type': 'str', 'serialization': {'type': 'format', 'formatting_string': 'd'}}).to_json('x')",
    "SchemaSerializer({'type': 'int', 'serialization': {'type': 'format', 'formatting_string': '.2f', 'when_used': 'json'}}).to_python('x', mode='json')",
    "SchemaSerializer({'type': 'any', 'serialization': {'type': 'to-string'}}).to_json(BadStr())",
    "SchemaSerializer({'type': 'any', 'serialization': {'type': 'to-string'}}).to_python(BadStr(), mode='json')",
    "SchemaSerializer({'type': 'dict', 'keys_schema': {'type': 'any'}}).to_json({(1, 2): 1})",
    "SchemaSerializer({'type': 'dict', 'keys_schema': {'type': 'any'}}).to_json({Plain(): 1})",
    "SchemaSerializer({'type': 'float'}, config={'ser_json_inf_nan': 'x'})",
    "SchemaSerializer({'type': 'float'}, config={'ser_json_inf_nan': 'null'}).to_json(float('nan'), warnings='x')",
    "SchemaSerializer({'type': 'bytes'}, config={'ser_json_bytes': 'utf8'}).to_json(b'\\xff')",
    "SchemaSerializer({'type': 'bytes'}, config={'ser_json_bytes': 'base64'}).to_json(b'\\xff', bytes_mode='x')",
    "SchemaSerializer({'type': 'any'}).to_json(b'\\xff')",
    "SchemaSerializer({'type': 'any'}).to_python(b'\\xff', mode='json')",
    "SchemaSerializer({'type': 'bytes'}).to_python(b'\\xff', mode='json')",
    "SchemaSerializer({'type': 'str'}).to_json('\\ud800')",
    "SchemaSerializer({'type': 'any'}).to_json({'\\ud800': 1})",
    "SchemaSerializer({'type': 'any'}).to_json(DC(a=object()))",
    "SchemaSerializer({'type': 'any'}).to_python(DC(a=object()), mode='json')",
    "SchemaSerializer({'type': 'any'}).to_json(Url('http://x.com'), serialize_unknown=True, include={'a'})",
    "SchemaSerializer({'type': 'any'}).to_json(BadStr(), serialize_unknown=True)",
    "SchemaSerializer({'type': 'any'}).to_python(BadStr(), serialize_unknown=True, mode='json')",
    "SchemaSerializer({'type': 'list', 'items_schema': {'type': 'int'}}).to_python([1, 2], include={'a'})",
    "SchemaSerializer({'type': 'list', 'items_schema': {'type': 'int'}}).to_python([1, 2], include={5: {1}})",
    "SchemaSerializer({'type': 'list', 'items_schema': {'type': 'int'}}).to_python([1], include=[1])",
    "SchemaSerializer({'type': 'dict'}).to_python({'a': 1}, exclude={'a': 1})",
    "SchemaSerializer({'type': 'dict'}).to_python({'a': 1}, include={'a': 'x'})",
    "SchemaSerializer({'type': 'dict'}).to_python({'a': 1}, include={1.5: True})",
    "SchemaSerializer({'type': 'tuple', 'items_schema': [{'type': 'int'}]}).to_python((1,), include={'x'})",
    "SchemaSerializer(" + MIN_SCHEMA["model"] + ").to_python(Model())",
    "SchemaSerializer(" + MIN_SCHEMA["model"] + ").to_json(Model())",
    "SchemaSerializer(" + MIN_SCHEMA["dataclass"] + ").to_json(DC(), exclude=5)",
    "SchemaSerializer(" + MIN_SCHEMA["typed-dict"] + ").to_json({'a': 1}, include={'a': 5})",
    "SchemaSerializer(" + MIN_SCHEMA["typed-dict"] + ").to_json({'a': object()})",
    "SchemaSerializer(" + MIN_SCHEMA["typed-dict"] + ").to_json(5, warnings='error')",
    "SchemaSerializer(" + MIN_SCHEMA["model-fields"] + ").to_json(5, warnings='error')",
    "SchemaSerializer({'type': 'int'}).to_json(1, by_alias=False, bogus=1)",
]

MISC_PC = [
    # Url / MultiHostUrl
    "Url.build(scheme='http')", "Url.build(host='x')", "Url.build(scheme='http', host='')",
    "Url.build(scheme='http', host='x', port=-1)", "Url.build(scheme='http', host='x', port=70000)",
    "Url.build(scheme='http', host='x', port='p')", "Url.build(scheme='', host='x')",
    "Url.build(scheme='http', host='x y')", "Url.build(scheme='1http', host='x')",
    "Url.build(scheme='http', host='[::1')", "Url.build(scheme='http', host='x', path=5)",
    "Url.build(scheme='http', host='x', username=5)", "Url.build(scheme='file', host='', path='/x', port=80)",
    "MultiHostUrl.build(scheme='http')", "MultiHostUrl.build(scheme='http', hosts=[])",
    "MultiHostUrl.build(scheme='http', hosts=[{'host': 'a'}], host='b')",
    "MultiHostUrl.build(scheme='http', hosts=[{}])", "MultiHostUrl.build(scheme='http', hosts=[{'port': 1}])",
    "MultiHostUrl.build(scheme='http', hosts=[{'host': 'a', 'port': -1}])",
    "MultiHostUrl.build(scheme='http', hosts=[{'host': 'a b'}])", "MultiHostUrl.build(scheme='http', hosts=5)",
    "MultiHostUrl.build(scheme='http', hosts=[5])", "MultiHostUrl.build(scheme='http', host='x', port=99999)",
    "MultiHostUrl.build(scheme='', host='x')", "MultiHostUrl.build(host='x')",
    "Url(5)", "Url()", "Url('http://x.com', 'y')", "MultiHostUrl(5)", "Url('http://x.com') < 5",
    "Url('http://x.com').bogus", "Url('http://x.com').query_params(5)", "Url('http://x.com').__deepcopy__()",
    "Url('http://x.com').__getnewargs__(5)",
    "SchemaValidator({'type': 'url', 'allowed_schemes': []})",
    "SchemaValidator({'type': 'url', 'default_host': 'a,b'})",
    "SchemaValidator({'type': 'multi-host-url', 'default_host': 'a,b'})",
    "SchemaValidator({'type': 'url', 'max_length': -1}).validate_python('http://x.com')",
    "SchemaValidator({'type': 'url', 'default_port': -1})",
    # ArgsKwargs
    "ArgsKwargs()", "ArgsKwargs(1)", "ArgsKwargs((1,), 5)", "ArgsKwargs((1,), {}, 3)",
    "ArgsKwargs(args=(1,), kwargs={1: 2}).kwargs", "ArgsKwargs((1,), kwargs=[1])", "ArgsKwargs([1])",
    "ArgsKwargs((1,)) < ArgsKwargs((2,))", "hash(ArgsKwargs((1,)))", "ArgsKwargs((1,)).args = 5",
    "SchemaValidator(" + MIN_SCHEMA["arguments"] + ").validate_python(ArgsKwargs((1,), {'a': 2}))",
    "SchemaValidator(" + MIN_SCHEMA["call"] + ").validate_python(5)",
    # ValidationError.from_exception_data
    "ValidationError.from_exception_data('t', [{'type': 'nope'}])",
    "ValidationError.from_exception_data('t', [{}])",
    "ValidationError.from_exception_data('t', [5])",
    "ValidationError.from_exception_data('t', 5)",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing'}], 'x')",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'loc': 5}])",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'loc': [1.5]}])",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'ctx': 5}])",
    "ValidationError.from_exception_data('t', [{'type': 'greater_than', 'input': 1}])",
    "str(ValidationError.from_exception_data('t', [{'type': 'greater_than', 'input': 1}]))",
    "str(ValidationError.from_exception_data('t', [{'type': 'greater_than', 'input': 1, 'ctx': {}}]))",
    "str(ValidationError.from_exception_data('t', [{'type': 'greater_than', 'input': 1, 'ctx': {'gt': object()}}]))",
    "ValidationError.from_exception_data('t', [{'type': 5}])",
    "ValidationError.from_exception_data('t', [{'type': PydanticCustomError('a', 'b'), 'input': 1}], hide_input='x')",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'input': 1}], input_type='x')",
    "ValidationError.from_exception_data(5, [])",
    "ValidationError('x')",
    "ValidationError.from_exception_data('t', []).errors(include_url='x')",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'input': 1}]).json(indent='x')",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'input': object()}]).json()",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'input': REC}]).json()",
    "ValidationError.from_exception_data('t', [{'type': 'int_parsing', 'input': 1}]).json(include_context=5)",
    "ValidationError.from_exception_data('t', [{'type': 'value_error', 'input': 1, 'ctx': {'error': 'x'}}]).json()",
    "ValidationError.from_exception_data('t', [{'type': 'assertion_error', 'input': 1}])",
    "ValidationError.from_exception_data('t', [{'type': 'value_error', 'input': 1}])",
    "ValidationError.from_exception_data('t', [{'type': 'json_invalid', 'input': 1}])",
    "ValidationError.from_exception_data('t', [{'type': 'too_short', 'input': 1, 'ctx': {'field_type': 'List'}}])",
    # PydanticCustomError / PydanticKnownError
    "PydanticCustomError()", "PydanticCustomError(5, 'x')", "PydanticCustomError('t', 5)",
    "PydanticCustomError('t', 'x', 5)", "PydanticCustomError('t', 'm {a}', {'a': object()}).message()",
    "str(PydanticCustomError('t', 'm {a}', {'b': 1}))", "PydanticKnownError('nope')",
    "PydanticKnownError('greater_than')", "str(PydanticKnownError('greater_than', {}))",
    "PydanticKnownError('greater_than', {'gt': 1}, 5)", "PydanticKnownError(5)",
    "PydanticKnownError('int_parsing', 5)", "PydanticKnownError('too_short', {'field_type': 'x'})",
    "PydanticKnownError('too_short', {'field_type': 'x', 'min_length': 'x', 'actual_length': 1})",
    "PydanticKnownError('string_too_short', {'min_length': 'x'})",
    "PydanticKnownError('decimal_max_digits', {'max_digits': []})",
    "PydanticKnownError('enum', {'expected': 5})", "PydanticKnownError('url_parsing', {'error': 5})",
    "PydanticKnownError('date_from_datetime_parsing', {})", "PydanticKnownError('custom_error')",
    "PydanticKnownError('model_type', {'class_name': 5})",
    "pc.PydanticOmit(5)", "pc.PydanticUseDefault(5)", "PydanticSerializationError()",
    "pc.PydanticSerializationUnexpectedValue(5, 6)",
    "SchemaValidator({'type': 'function-plain', 'function': {'type': 'no-info', 'function': lambda v: (_ for _ in ()).throw(PydanticKnownError('nope'))}}).validate_python(1)",
    "SchemaValidator({'type': 'function-plain', 'function': {'type': 'no-info', 'function': lambda v: (_ for _ in ()).throw(pc.PydanticOmit())}}).validate_python(1)",
    "SchemaValidator({'type': 'function-plain', 'function': {'type': 'no-info', 'function': lambda v: (_ for _ in ()).throw(pc.PydanticUseDefault())}}).validate_python(1)",
    "SchemaValidator({'type': 'list', 'items_schema': {'type': 'function-plain', 'function': {'type': 'no-info', 'function': lambda v: (_ for _ in ()).throw(pc.PydanticUseDefault())}}}).validate_python([1])",
    "SchemaValidator({'type': 'function-after', 'function': {'type': 'with-info', 'function': lambda v, i: i.field_name}, 'schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'function-after', 'function': {'type': 'with-info', 'function': lambda v, i: i.bogus}, 'schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'function-wrap', 'function': {'type': 'no-info', 'function': lambda v, h: h(1, 2, 3)}, 'schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'function-wrap', 'function': {'type': 'no-info', 'function': lambda v, h: h.bogus}, 'schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'function-wrap', 'function': {'type': 'no-info', 'function': lambda v, h: h(v, outer_location=1.5)}, 'schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'model', 'cls': Model, 'schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'model', 'cls': int, 'schema': " + MIN_SCHEMA["model-fields"] + "}).validate_python({'a': 1})",
    "SchemaValidator({'type': 'model', 'cls': Model, 'schema': " + MIN_SCHEMA["model-fields"] + ", 'post_init': 'nope'}).validate_python({'a': 1})",
    "SchemaValidator({'type': 'dataclass', 'cls': DC, 'fields': ['a'], 'schema': " + MIN_SCHEMA["dataclass-args"] + ", 'post_init': True}).validate_python({'a': 1})",
    "SchemaValidator({'type': 'dataclass', 'cls': int, 'fields': ['a'], 'schema': " + MIN_SCHEMA["dataclass-args"] + "}).validate_python({'a': 1})",
    "SchemaValidator({'type': 'dataclass', 'cls': DC, 'fields': ['a'], 'schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'call', 'function': f, 'arguments_schema': {'type': 'int'}}).validate_python(1)",
    "SchemaValidator({'type': 'call', 'function': f, 'arguments_schema': {'type': 'any'}}).validate_python(1)",
    "SchemaValidator({'type': 'arguments', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}}], 'validate_by_name': True, 'validate_by_alias': False}).validate_python(ArgsKwargs((1,)))",
    "SchemaValidator({'type': 'generator', 'items_schema': {'type': 'int'}}).validate_python(iter(['x'])).__next__()",
    "next(SchemaValidator({'type': 'generator', 'items_schema': {'type': 'int'}, 'max_length': 1}).validate_python(iter([1, 2, 3])), None) and list(SchemaValidator({'type': 'generator', 'items_schema': {'type': 'int'}, 'max_length': 1}).validate_python(iter([1, 2, 3])))",
    "SchemaValidator({'type': 'default', 'schema': {'type': 'int'}, 'default_factory': lambda: [], 'validate_default': True}).validate_python(pc.PydanticUndefined)",
    "SchemaValidator({'type': 'default', 'schema': {'type': 'int'}, 'default': 'x', 'validate_default': True}).get_default_value()",
    "SchemaValidator({'type': 'typed-dict', 'fields': {'a': {'type': 'typed-dict-field', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'default_factory': lambda d: d['zz'], 'default_factory_takes_data': True}}}}).validate_python({})",
    "SchemaValidator({'type': 'model-fields', 'fields': {'a': {'type': 'model-field', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'default_factory': lambda d: 1, 'default_factory_takes_data': True}}, 'b': {'type': 'model-field', 'schema': {'type': 'int'}}}}).validate_python({'b': 'x'})",
    # TzInfo
    "TzInfo(86400)", "TzInfo(-86400)", "TzInfo('x')", "TzInfo(1e20)", "TzInfo(1).utcoffset(5)",
    "TzInfo(1).fromutc(5)", "TzInfo(1).fromutc(datetime.datetime(2020, 1, 1))",
    "TzInfo(1).fromutc(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))", "TzInfo(1).tzname(5)",
    "TzInfo(float('nan'))", "TzInfo(1) < TzInfo(2)",
    # module
    "pc.bogus_name", "pc.list_all_errors(5)", "pc.Some()", "pc.Some(1, 2)", "pc.Some(1).value = 2",
    "pc.Some[int, str]", "pc.to_json()", "pc.from_json()", "pc.validate_core_schema({'type': 'int'})",
    "pc.PydanticUndefinedType()", "pc.core_schema.bogus", "import pydantic_core._pydantic_core as m; m.bogus",
    "pc.core_schema.int_schema(gt='x', bogus=1)", "pc.core_schema.model_schema(Model)",
    "pc.core_schema.with_default_schema({'type': 'int'}, default=1, default_factory=f)",
    "SchemaValidator(pc.core_schema.with_default_schema({'type': 'int'}, default=1, default_factory=f))",
    "pc.core_schema.field_after_validator_function(f, 'x', {'type': 'int'})",
    "pc.core_schema.general_after_validator_function(f, {'type': 'int'})",
    "pc.core_schema.general_plain_validator_function(f)",
    "pc.core_schema.general_wrap_validator_function(f, {'type': 'int'})",
    "pc.core_schema.field_before_validator_function(f, 'x', {'type': 'int'})",
    "pc.core_schema.field_plain_validator_function(f, 'x')",
    "pc.core_schema.field_wrap_validator_function(f, 'x', {'type': 'int'})",
    "pc.core_schema.general_before_validator_function(f, {'type': 'int'})",
    "pc.core_schema.with_info_after_validator_function(f, {'type': 'int'}, field_name='x')",
    "pc.core_schema.with_info_plain_validator_function(f, field_name='x')",
    "pc.core_schema.with_info_before_validator_function(f, {'type': 'int'}, field_name='x')",
    "pc.core_schema.with_info_wrap_validator_function(f, {'type': 'int'}, field_name='x')",
    "pc.core_schema.FieldValidationInfo", "pc.core_schema.MultiHostUrlSchema",
    "import warnings; warnings.simplefilter('error'); pc.core_schema.field_after_validator_function(f, 'x', {'type': 'int'})",
    "import warnings; warnings.simplefilter('error'); pc.core_schema.with_info_plain_validator_function(f, field_name='x')",
    "import warnings; warnings.simplefilter('error'); pc.core_schema.general_plain_validator_function(f)",
    "import warnings; warnings.simplefilter('error'); pc.core_schema.FieldValidationInfo",
    "import warnings; warnings.simplefilter('error'); pc.core_schema.MultiHostUrlSchema",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer({'type': 'int'}).to_python('x')",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer({'type': 'int'}).to_json('x')",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer({'type': 'list', 'items_schema': {'type': 'int'}}).to_python(['x', 1.5])",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer(" + MIN_SCHEMA["model"] + ").to_python(5)",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer(" + MIN_SCHEMA["typed-dict"] + ").to_python({'a': 'x'})",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer({'type': 'union', 'choices': [{'type': 'int'}, {'type': 'str'}]}).to_python(1.5)",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer({'type': 'tagged-union', 'choices': {'a': {'type': 'int'}}, 'discriminator': 'k'}).to_python(1.5)",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer({'type': 'int'}, config={'ser_json_timedelta': 'float'})",
    "import warnings; warnings.simplefilter('error'); SchemaValidator({'type': 'int'}, config={'ser_json_timedelta': 'float'})",
    "import warnings; warnings.simplefilter('error'); SchemaSerializer({'type': 'timedelta'}, config={'ser_json_timedelta': 'float'}).to_json(datetime.timedelta(1))",
]


def pydantic_core_programs():
    out = []
    keys = schema_keys()
    for t, base in MIN_SCHEMA.items():
        for ctor in ("SchemaValidator", "SchemaSerializer"):
            out.append(f"{ctor}({{'type': {t!r}}})")
            out.append(f"{ctor}({base})")  # the minimal schema (definition-ref alone, missing-sentinel...)
            for k in sorted(keys.get(t, ())):
                out.append(f"_s = {base}; _s.pop({k!r}, None); {ctor}(_s)")
                for bad in BAD_VALUES:
                    out.append(f"_s = {base}; _s[{k!r}] = {bad}; {ctor}(_s)")
            for ser in SER_SCHEMAS:
                out.append(f"_s = {base}; _s['serialization'] = {ser}; {ctor}(_s)")
    for k in config_keys():
        for bad in BAD_VALUES[:9]:
            out.append(f"SchemaValidator({{'type': 'str'}}, config={{{k!r}: {bad}}})")
            out.append(f"SchemaSerializer({{'type': 'float'}}, config={{{k!r}: {bad}}})")
            out.append(f"SchemaValidator({MIN_SCHEMA['model']}, config={{{k!r}: {bad}}})")
    # fields and parameters of the structured schemas, mutated one level down
    nested = {
        "typed-dict": ("fields", "{'a': %s}", "{'type': 'typed-dict-field', 'schema': {'type': 'int'}}"),
        "model-fields": ("fields", "{'a': %s}", "{'type': 'model-field', 'schema': {'type': 'int'}}"),
        "dataclass-args": ("fields", "[%s]", "{'type': 'dataclass-field', 'name': 'a', 'schema': {'type': 'int'}}"),
        "arguments": ("arguments_schema", "[%s]", "{'name': 'a', 'schema': {'type': 'int'}}"),
        "arguments-v3": ("arguments_schema", "[%s]", "{'name': 'a', 'schema': {'type': 'int'}}"),
    }
    for t, (key, wrap, entry) in nested.items():
        e = ast.literal_eval(entry)
        for ek in list(e) + ["required", "mode", "alias", "validation_alias", "serialization_alias",
                             "frozen", "init", "init_only", "kw_only", "serialization_exclude",
                             "serialization_exclude_if", "metadata", "validate_by_name"]:
            variants = [f"_e = {entry}; _e.pop({ek!r}, None)"]
            variants += [f"_e = {entry}; _e[{ek!r}] = {bad}" for bad in BAD_VALUES]
            for v in variants:
                for ctor in ("SchemaValidator", "SchemaSerializer"):
                    out.append(f"{v}; _s = {MIN_SCHEMA[t]}; _s[{key!r}] = {wrap % '_e'}; {ctor}(_s)")
    hand = [
        "SchemaValidator({'type': 'typed-dict', 'fields': {'a': {'type': 'typed-dict-field', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'default': 1}, 'required': True}}})",
        "SchemaValidator({'type': 'typed-dict', 'fields': {'a': {'type': 'typed-dict-field', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'on_error': 'omit'}, 'required': True}}})",
        "SchemaValidator({'type': 'arguments', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'default': 1}}, {'name': 'b', 'schema': {'type': 'int'}}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'default': 1}}, {'name': 'b', 'schema': {'type': 'int'}}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}}, {'name': 'a', 'schema': {'type': 'int'}}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}, 'mode': 'var_args'}, {'name': 'b', 'schema': {'type': 'int'}, 'mode': 'var_args'}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}, 'mode': 'var_kwargs_uniform'}, {'name': 'b', 'schema': {'type': 'int'}, 'mode': 'var_kwargs_unpacked_typed_dict'}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}, 'mode': 'var_kwargs_unpacked_typed_dict'}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}, 'mode': 'var_kwargs_uniform'}, {'name': 'b', 'schema': {'type': 'int'}}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}, 'mode': 'var_args'}, {'name': 'b', 'schema': {'type': 'int'}, 'mode': 'positional_only'}]})",
        "SchemaValidator({'type': 'arguments-v3', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}, 'mode': 'keyword_only'}, {'name': 'b', 'schema': {'type': 'int'}, 'mode': 'positional_or_keyword'}]})",
        "SchemaValidator({'type': 'arguments', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}}], 'var_kwargs_mode': 'unpacked-typed-dict'})",
        "SchemaValidator({'type': 'arguments', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'int'}}], 'var_kwargs_mode': 'unpacked-typed-dict', 'var_kwargs_schema': {'type': 'int'}})",
        "SchemaValidator({'type': 'arguments', 'arguments_schema': [{'name': 'a', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'on_error': 'omit', 'default': 1}}]})",
        "SchemaValidator({'type': 'dataclass-args', 'dataclass_name': 'DC', 'fields': [{'type': 'dataclass-field', 'name': 'a', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'on_error': 'omit', 'default': 1}}]})",
        "SchemaValidator({'type': 'typed-dict', 'fields': {'a': {'type': 'typed-dict-field', 'schema': {'type': 'default', 'schema': {'type': 'int'}, 'on_error': 'omit'}}}})",
        "SchemaValidator({'type': 'default', 'schema': {'type': 'int'}, 'default': 1, 'default_factory': f})",
        "SchemaValidator({'type': 'default', 'schema': {'type': 'int'}, 'on_error': 'default'})",
        "SchemaValidator({'type': 'definitions', 'schema': {'type': 'int'}, 'definitions': [{'type': 'int', 'ref': 'r'}, {'type': 'str', 'ref': 'r'}]})",
        "SchemaValidator({'type': 'definitions', 'schema': {'type': 'definition-ref', 'schema_ref': 'zz'}, 'definitions': []})",
        "SchemaValidator({'type': 'definitions', 'schema': {'type': 'int'}, 'definitions': [{'type': 'int'}]})",
        "SchemaSerializer({'type': 'definitions', 'schema': {'type': 'definition-ref', 'schema_ref': 'zz'}, 'definitions': []})",
        "SchemaValidator({'type': 'definition-ref', 'schema_ref': 'r'})",
        "SchemaSerializer({'type': 'definition-ref', 'schema_ref': 'r'})",
        "SchemaValidator({'type': 'tagged-union', 'choices': {}, 'discriminator': 'k'})",
        "SchemaValidator({'type': 'tagged-union', 'choices': {'a': {'type': 'int'}}, 'discriminator': []})",
        "SchemaValidator({'type': 'tagged-union', 'choices': {'a': {'type': 'int'}}, 'discriminator': [[]]})",
        "SchemaValidator({'type': 'tagged-union', 'choices': {'a': {'type': 'int'}}, 'discriminator': [['a', 1.5]]})",
        "SchemaValidator({'type': 'model-fields', 'fields': {'a': {'type': 'model-field', 'schema': {'type': 'int'}, 'validation_alias': []}}})",
        "SchemaValidator({'type': 'model-fields', 'fields': {'a': {'type': 'model-field', 'schema': {'type': 'int'}, 'validation_alias': [[]]}}})",
        "SchemaValidator({'type': 'model-fields', 'fields': {'a': {'type': 'model-field', 'schema': {'type': 'int'}, 'validation_alias': [['a', 1.5]]}}})",
        "SchemaValidator({'type': 'model-fields', 'fields': {'a': {'type': 'model-field', 'schema': {'type': 'int'}, 'validation_alias': [[1]]}}})",
        "SchemaValidator({'type': 'model-fields', 'fields': {}, 'extra_behavior': 'forbid', 'extras_schema': {'type': 'int'}})",
        "SchemaValidator({'type': 'model-fields', 'fields': {}, 'extras_keys_schema': {'type': 'int'}})",
        "SchemaValidator({'type': 'typed-dict', 'fields': {}, 'extras_schema': {'type': 'int'}})",
        "SchemaSerializer({'type': 'typed-dict', 'fields': {}, 'extras_schema': {'type': 'int'}})",
        "SchemaSerializer({'type': 'model-fields', 'fields': {}, 'extras_schema': {'type': 'int'}})",
        "SchemaValidator({'type': 'dataclass-args', 'dataclass_name': 'DC', 'fields': [], 'extras_schema': {'type': 'int'}})",
        "SchemaValidator({'type': 'union', 'choices': []})", "SchemaSerializer({'type': 'union', 'choices': []})",
        "SchemaValidator({'type': 'union', 'choices': [{'type': 'int'}], 'mode': 'x'})",
        "SchemaValidator({'type': 'union', 'choices': [({'type': 'int'}, 5)]})",
        "SchemaValidator({'type': 'union', 'choices': [({'type': 'int'}, 'a', 'b')]})",
        "SchemaValidator({'type': 'chain', 'steps': []})",
        "SchemaValidator({'type': 'literal', 'expected': []})", "SchemaSerializer({'type': 'literal', 'expected': []})",
        "SchemaValidator({'type': 'enum', 'cls': Color, 'members': []})",
        "SchemaValidator({'type': 'enum', 'cls': Color, 'members': list(Color), 'sub_type': 'x'})",
        "SchemaSerializer({'type': 'enum', 'cls': Color, 'members': list(Color), 'sub_type': 'x'})",
        "SchemaValidator({'type': 'is-instance', 'cls': 5})",
        "SchemaValidator({'type': 'is-instance', 'cls': (int, 5)})",
        "SchemaValidator({'type': 'datetime', 'now_op': 'x'})",
        "SchemaValidator({'type': 'datetime', 'tz_constraint': 'x'})",
        "SchemaValidator({'type': 'datetime', 'tz_constraint': 1.5})",
        "SchemaValidator({'type': 'datetime', 'tz_constraint': 10**6})",
        "SchemaValidator({'type': 'datetime', 'now_utc_offset': 10**6, 'now_op': 'past'})",
        "SchemaValidator({'type': 'model', 'cls': Model, 'schema': {'type': 'int'}, 'revalidate_instances': 'x'})",
        "SchemaValidator({'type': 'custom-error', 'schema': {'type': 'int'}, 'custom_error_type': 'x'})",
        "SchemaValidator({'type': 'custom-error', 'schema': {'type': 'int'}, 'custom_error_type': 'nope_not_known'})",
        "SchemaValidator({'type': 'custom-error', 'schema': {'type': 'int'}, 'custom_error_type': 'greater_than'})",
        "SchemaValidator({'type': 'custom-error', 'schema': {'type': 'int'}, 'custom_error_type': 'int_parsing', 'custom_error_context': {'x': 1}})",
        "SchemaValidator({'type': 'str', 'pattern': '('})", "SchemaValidator({'type': 'str', 'pattern': '(', 'regex_engine': 'python-re'})",
        "SchemaValidator({'type': 'str', 'pattern': 'a', 'regex_engine': 'x'})",
        "SchemaValidator({'type': 'str', 'pattern': '(?<=a)b'})", "SchemaValidator({'type': 'str', 'pattern': 'a{99999999}'})",
        "SchemaValidator({'type': 'str', 'pattern': '[z-a]'})", "SchemaValidator({'type': 'str', 'pattern': '\\\\'})",
        "SchemaValidator({'type': 'bytes', 'pattern': 'x'})", "SchemaValidator({'type': 'decimal', 'max_digits': 2, 'decimal_places': 3})",
        "SchemaValidator({'type': 'int', 'gt': 10**40})", "SchemaValidator({'type': 'float', 'allow_inf_nan': 'x'})",
        "SchemaValidator({'type': 'timedelta', 'gt': 'x'})", "SchemaValidator({'type': 'date', 'gt': 'x'})",
        "SchemaValidator({'type': 'time', 'gt': 'x'})", "SchemaValidator({'type': 'datetime', 'gt': 'x'})",
        "SchemaValidator({'type': 'decimal', 'gt': 'x'})", "SchemaValidator({'type': 'time', 'tz_constraint': 'x'})",
        "SchemaValidator({'type': 'url', 'allowed_schemes': []})", "SchemaValidator({'type': 'multi-host-url', 'allowed_schemes': []})",
        "SchemaValidator({'type': 'list', 'items_schema': {'type': 'int'}, 'fail_fast': 'x'})",
        "SchemaValidator({'type': 'tuple', 'items_schema': [{'type': 'int'}], 'variadic_item_index': 5})",
        "SchemaValidator({'type': 'tuple', 'items_schema': [{'type': 'int'}], 'variadic_item_index': 5}).validate_python((1, 2))",
        "SchemaValidator({'type': 'json', 'schema': {'type': 'foo'}})", "SchemaValidator({'type': 'invalid'})",
        "SchemaSerializer({'type': 'invalid'})", "SchemaValidator({'type': 'function-plain', 'function': {'type': 'x', 'function': f}})",
        "SchemaValidator({'type': 'function-plain', 'function': {'type': 'no-info'}})",
        "SchemaValidator({'type': 'function-plain', 'function': {'type': 'with-info', 'function': f, 'field_name': 5}})",
        "SchemaValidator({'type': 'call', 'function': 5, 'arguments_schema': {'type': 'arguments', 'arguments_schema': []}})",
        "SchemaValidator({'type': 'call', 'function': f, 'arguments_schema': {'type': 'arguments', 'arguments_schema': []}, 'return_schema': {'type': 'foo'}})",
        "SchemaValidator({'type': 'model', 'cls': Model, 'schema': {'type': 'model-fields', 'fields': {}}, 'config': {'extra_fields_behavior': 'x'}})",
        "SchemaValidator({'type': 'model-fields', 'fields': {}, 'extra_behavior': 'x'})",
        "SchemaSerializer({'type': 'model-fields', 'fields': {}, 'extra_behavior': 'x'})",
        "SchemaValidator({'type': 'typed-dict', 'fields': {}, 'extra_behavior': 'x'})",
        "SchemaSerializer({'type': 'int', 'serialization': {'type': 'function-plain', 'function': f, 'return_schema': {'type': 'int', 'serialization': {'type': 'foo'}}}})",
        "SchemaSerializer({'type': 'any', 'serialization': {'type': 'function-wrap', 'function': f_wrap, 'schema': {'type': 'any'}}}).to_json(1, bogus=2)",
        "SchemaSerializer({'type': 'dict', 'serialization': {'type': 'include-exclude-dict', 'include': 5}})",
        "SchemaSerializer({'type': 'list', 'serialization': {'type': 'include-exclude-sequence', 'include': ['x']}})",
        "SchemaSerializer({'type': 'list', 'serialization': {'type': 'include-exclude-sequence', 'exclude': 5}})",
        "SchemaSerializer({'type': 'model', 'cls': Model, 'schema': {'type': 'model-fields', 'fields': {}}, 'root_model': True})",
        "SchemaSerializer({'type': 'model', 'cls': Model, 'schema': {'type': 'int'}, 'root_model': True}).to_python(Model())",
        "SchemaSerializer({'type': 'model', 'cls': Model, 'schema': {'type': 'model-fields', 'fields': {'a': {'type': 'model-field', 'schema': {'type': 'int'}}}}}).to_python(Model(), mode='json')",
        "SchemaSerializer({'type': 'model-fields', 'fields': {'a': {'type': 'model-field', 'schema': {'type': 'int'}}}, 'computed_fields': [{'type': 'computed-field', 'property_name': 'zz', 'return_schema': {'type': 'int'}}]}).to_python({'a': 1})",
        "SchemaSerializer({'type': 'model', 'cls': Model, 'schema': {'type': 'model-fields', 'fields': {}, 'computed_fields': [{'type': 'computed-field', 'property_name': 'zz', 'return_schema': {'type': 'int'}}]}}).to_python(Model())",
        "SchemaSerializer({'type': 'model-fields', 'fields': {}, 'computed_fields': [5]})",
        "SchemaSerializer({'type': 'model-fields', 'fields': {}, 'computed_fields': [{'type': 'computed-field'}]})",
    ]
    out += hand
    out += VALIDATOR_CALLS + MISC_PC
    for tgt in SER_TARGETS:
        sch = MIN_SCHEMA.get(tgt, f"{{'type': {tgt!r}}}")
        for v in SER_VALUES:
            out.append(f"SchemaSerializer({sch}).to_python({v}, mode='json', warnings='error')")
            out.append(f"SchemaSerializer({sch}).to_json({v}, warnings='error')")
            out.append(f"SchemaSerializer({sch}).to_json({v})")
    for v in TO_JSON_VALUES:
        out.append(f"to_json({v})")
        out.append(f"to_jsonable_python({v})")
        out.append(f"to_json({v}, serialize_unknown=True)")
        out.append(f"to_json({v}, fallback=raises)")
    for o in TO_JSON_OPTS:
        out.append(f"to_json({{'a': 1}}, {o})")
        out.append(f"to_jsonable_python({{'a': 1}}, {o})")
        out.append(f"to_json(datetime.timedelta(1), {o})")
        out.append(f"to_json(b'x', {o})")
        out.append(f"to_json(float('nan'), {o})")
        out.append(f"SchemaSerializer({{'type': 'any'}}).to_json({{'a': 1}}, {o})")
    return [("pydantic_core", "pydantic_core", s) for s in out]


# ---------------------------------------------------------------------------
# Running

WORKER = r"""
import json, resource, signal, sys, warnings
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
sys.setrecursionlimit(10000)
PRELUDE = json.loads(sys.argv[1])
class Timeout(BaseException):
    pass
def alarm(*_):
    raise Timeout()
signal.signal(signal.SIGALRM, alarm)
for line in sys.stdin:
    job = json.loads(line)
    res = {"i": job["i"]}
    try:
        with warnings.catch_warnings():
            signal.alarm(3)
            exec(compile(PRELUDE + job["src"], "<case>", "exec"), {"__name__": "__case__"})
        res["ok"] = True
    except Timeout:
        res["timeout"] = True
    except BaseException as e:
        t = type(e)
        res["type"] = (t.__module__ + "." if t.__module__ != "builtins" else "") + t.__qualname__
        try:
            res["message"] = str(e)
        except BaseException:
            res["message"] = None
    finally:
        signal.alarm(0)
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
"""


def discover(programs, jobs):
    """Runs every program in worker processes; a crashed worker is restarted
    after the program it died on. Returns the worker's result per index."""
    import threading
    results = {}
    lock = threading.Lock()
    chunks = [list(range(len(programs)))[k::jobs] for k in range(jobs)]

    def run(chunk):
        while chunk:
            with tempfile.TemporaryDirectory() as tmp:
                p = subprocess.Popen([PY, "-c", WORKER, json.dumps(PRELUDE)], cwd=tmp,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
                feed = "".join(json.dumps({"i": i, "src": programs[i][2]}) + "\n" for i in chunk)

                def write(feed=feed, p=p):
                    try:
                        p.stdin.write(feed)
                        p.stdin.close()
                    except (BrokenPipeError, OSError):
                        pass

                threading.Thread(target=write, daemon=True).start()
                done = set()
                for line in p.stdout:
                    r = json.loads(line)
                    done.add(r["i"])
                    with lock:
                        results[r["i"]] = r
                p.wait()
            rest = [i for i in chunk if i not in done]
            if rest:  # crashed on rest[0]
                with lock:
                    results[rest[0]] = {"i": rest[0], "crash": p.returncode}
                rest = rest[1:]
            chunk = rest

    threads = [threading.Thread(target=run, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def shape_of(message):
    """The message with its values blanked: pydantic's `[input_value=...,
    input_type=...]`, quoted text, addresses, numbers, a trailing repr after
    `: ` and a trailing word (`Type is not JSON serializable: set`,
    `must be real number, not str`)."""
    m = re.sub(r"input_value=.*?, input_type=[\w.]+", "I", message or "", flags=re.S)
    m = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`", "Q", m)
    m = re.sub(r"0x[0-9a-fA-F]+", "H", m)
    m = re.sub(r": [\[{(<\d-].*$|: (None|True|False)$", ": V", m)
    m = re.sub(r"(?<=[ :])[\w.]+$", "W", m)
    return re.sub(r"\d+", "N", m)


RUNNER = r"""
import json, resource, sys, traceback
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
sys.setrecursionlimit(10000)
prog, out = sys.argv[1], sys.argv[2]
src = open(prog).read()
try:
    exec(compile(src, prog, "exec"), {"__name__": "__main__"})
except BaseException as e:
    tb = traceback.extract_tb(e.__traceback__)
    t = type(e)
    json.dump({"type": (t.__module__ + "." if t.__module__ != "builtins" else "") + t.__qualname__,
               "printed": "".join(traceback.format_exception_only(t, e)),
               "message": str(e),
               "frames": [[f.filename, f.lineno, f.name] for f in tb]}, open(out, "w"))
    raise
"""

PACKAGES = {"orjson": "orjson", "rpds": "rpds", "pydantic_core": "pydantic_core"}


def site_root():
    out = subprocess.run([PY, "-c", "import orjson, os; print(os.path.dirname(os.path.dirname("
                          "orjson.__file__)))"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


_RAISE_LINES = {}


def raise_lines(path):
    """Lines of `path` where a raise or assert statement or a `warn(...)` /
    `warnings.warn(...)` call starts (a warning the program turned into an
    error is raised there)."""
    if path not in _RAISE_LINES:
        lines = set()
        try:
            tree = ast.parse(open(path, encoding="utf-8").read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.Raise, ast.Assert)):
                    lines.add(node.lineno)
                elif isinstance(node, ast.Call) and (
                        isinstance(node.func, ast.Name) and node.func.id == "warn" or
                        isinstance(node.func, ast.Attribute) and node.func.attr == "warn"):
                    lines.add(node.lineno)
        except (OSError, SyntaxError, ValueError):
            pass
        _RAISE_LINES[path] = lines
    return _RAISE_LINES[path]


def classify(frames, prog, root, library):
    """(group, innermost frame of interest as (path, line) or None)."""
    if not frames:
        return "other", None
    path, line, _ = frames[-1]
    if path == prog:
        if line in raise_lines(prog):
            return "other", ("/home/user/prog.py", line)  # the program's own raise
        return "rust", None
    pkg_dir = os.path.join(root, PACKAGES[library]) + "/"
    if path.startswith(pkg_dir) and path.endswith(".py"):
        rel = os.path.relpath(path, root)
        if line in raise_lines(path):
            return "python", (rel, line)
        return "rust", (rel, line)
    return "other", (path, line)


def fresh_run(program, root, timeout):
    """Runs one program alone; the case, or None when it did not fail."""
    library, origin, src = program
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "prog.py")
        out = os.path.join(tmp, "out.json")
        with open(prog, "w") as fh:
            fh.write(PRELUDE + src + "\n")
        runner = os.path.join(tmp, "runner.py")
        with open(runner, "w") as fh:
            fh.write(RUNNER)
        try:
            run = subprocess.run(["unshare", "-rn", PY, runner, prog, out], cwd=tmp,
                                 capture_output=True, text=True, errors="replace",
                                 timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        if run.returncode == 0 or not os.path.exists(out):
            return None
        info = json.load(open(out))
        group, inner = classify(info["frames"], prog, root, library)  # reads prog.py
    # The traceback as printed, the runner's own frame left out (a user's
    # traceback starts at their script).
    tb = re.sub(r'  File "[^"]*runner\.py", line \d+, in <module>\n(    .*\n)*?(?=  File)', "",
                run.stderr)
    tb = tb.replace(prog, "/home/user/prog.py")
    return {"library": library, "origin": origin, "program": src, "type": info["type"],
            "printed": info["printed"], "message": info["message"], "traceback": tb,
            "group": group, "inner": inner,
            "frames": [[os.path.relpath(p, root) if p.startswith(root + "/")
                        else "/home/user/prog.py" if p == prog else p, n, fn]
                       for p, n, fn in info["frames"][1:]]}


def all_programs(only):
    progs = []
    if "orjson" in only or "pydantic_core" in only:
        progs += [p for p in json_programs() if p[0] in only]
    if "orjson" in only:
        progs += dumps_programs()
    if "rpds" in only:
        progs += rpds_programs()
    if "pydantic_core" in only:
        progs += pydantic_core_programs()
    seen, out = set(), []
    for p in progs:
        if p[2] not in seen:
            seen.add(p[2])
            out.append(p)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--per-shape", type=int, default=3,
                    help="at most this many cases per message shape (values blanked)")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--limit", type=int, default=0, help="programs to try (0: all)")
    ap.add_argument("--only", default="orjson,rpds,pydantic_core",
                    help="comma-separated packages to exercise")
    ap.add_argument("--programs", help="also write every program tried here (JSON lines)")
    args = ap.parse_args()
    only = set(args.only.split(","))
    programs = all_programs(only)
    if args.limit:
        programs = programs[:args.limit]
    if args.programs:
        with open(args.programs, "w") as fh:
            for p in programs:
                fh.write(json.dumps(p) + "\n")
    t0 = time.time()
    print(f"{len(programs)} programs", file=sys.stderr)
    found = discover(programs, args.jobs)
    stats = {"programs": len(programs), "succeeded": 0, "timeout": 0, "crash": 0,
             "program bug": 0, "ValidationError report (pydantic_cases.py)": 0,
             "duplicate message": 0, "over per-shape cap": 0}
    seen, per_shape, keep = set(), {}, []
    for i in range(len(programs)):
        r = found.get(i, {"crash": "lost"})
        for k in ("timeout", "crash"):
            if k in r:
                stats[k] += 1
        if r.get("ok"):
            stats["succeeded"] += 1
        if "type" not in r:
            continue
        if r["type"] in ("NameError", "SyntaxError", "UnboundLocalError") or r["message"] is None:
            stats["program bug"] += 1
            continue
        if r["type"].endswith("ValidationError") and "validation error" in r["message"]:
            stats["ValidationError report (pydantic_cases.py)"] += 1
            continue
        key = (programs[i][0], r["type"], r["message"])
        if key in seen:
            stats["duplicate message"] += 1
            continue
        seen.add(key)
        sk = (programs[i][0], r["type"], shape_of(r["message"]))
        per_shape[sk] = per_shape.get(sk, 0) + 1
        if per_shape[sk] > args.per_shape:
            stats["over per-shape cap"] += 1
            continue
        keep.append(i)
    print(f"discovery: {time.time() - t0:.0f}s, {len(keep)} programs to rerun", file=sys.stderr)
    root = site_root()
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(args.jobs) as pool:
        cases = list(pool.map(lambda i: fresh_run(programs[i], root, args.timeout), keep))
    stats["not reproduced alone"] = sum(c is None for c in cases)
    cases = [c for c in cases if c is not None]
    # a rerun may print another message than discovery saw; keep one per message
    uniq, dup = [], set()
    for c in cases:
        k = (c["library"], c["type"], c["message"])
        if k in dup:
            stats["duplicate after rerun"] = stats.get("duplicate after rerun", 0) + 1
            continue
        dup.add(k)
        uniq.append(c)
    cases = uniq
    groups = {}
    for c in cases:
        k = c["library"] + ": " + c["group"]
        groups[k] = groups.get(k, 0) + 1
    stats["cases"] = len(cases)
    stats["groups"] = groups
    stats["seconds"] = round(time.time() - t0)
    with open(args.out, "w") as fh:
        for c in cases:
            fh.write(json.dumps(c) + "\n")
    print(json.dumps(stats, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
