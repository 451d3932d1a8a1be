#!/usr/bin/env python3
"""Executed numpy errors, most of them raised from C.

Builds programs that misuse numpy (introspection of public callables with
unsuitable arguments, every ufunc and its methods with mismatched operands,
and parametrised scenarios: dtype strings, datetime strings, einsum
subscripts, index expressions, shapes, casting...), runs them in worker
processes to find the failing ones, keeps one program per distinct message
(at most --per-shape per message shape), reruns each kept program alone in a
fresh interpreter with a timeout and keeps that run's traceback.

Each case is grouped by its innermost frame: `c` (user code or a numpy .py
line that is not a raise: a C function raised), `python` (a numpy .py
raise/assert line: the truth is that line), `cython` (a .pyx frame), `other`.
Labels for `c` come from numpy_label.py, scoring from numpy_score.py.

    /usr/bin/python3 bench/eval/numpy_cases.py --out cases.jsonl [--jobs 2]

(run with the interpreter that has numpy: it introspects numpy itself; set
NUMPY_PYTHON to that same interpreter). Works on numpy 1.x and 2.x: where
numpy 2 moved a module (`numpy.core` to `numpy._core`,
`numpy.core.defchararray` to `numpy.char`) the one that exists is used, and a
program naming a numpy attribute this numpy does not have (`np.lookfor`,
`A.itemset` on 2.x) is left out.
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

PY = os.environ.get("NUMPY_PYTHON", "/usr/bin/python3")

# Arrays and values programs may use (prelude of every program).
PRELUDE = """\
import numpy as np
A = np.arange(6).reshape(2, 3)
A3 = np.arange(4)
F = np.linspace(0.0, 1.0, 6).reshape(2, 3)
C = np.ones((2, 2), dtype=complex)
S = np.array(['ab', 'cd', 'ef'])
Bt = np.array([b'ab', b'cd'])
D = np.array(['2020-01-01', '2021-06-30'], dtype='datetime64[D]')
TD = np.array([1, 2], dtype='timedelta64[s]')
O = np.array([1, 'a', None], dtype=object)
B = np.array([True, False, True])
R = np.zeros(2, dtype=[('a', 'i4'), ('b', 'f8')])
E = np.zeros((0, 3))
Z3 = np.zeros((2, 2, 2))
rng = np.random.default_rng(0)
"""

# Unsuitable argument lists for public callables (as source text).
BAD_ARGS = [
    "", "'abc'", "None", "object()", "A, 'x'", "A, A3", "A, 7", "A, -9", "A, 1.5",
    "'x', 'y'", "A, dtype='foo'", "A, axis=9", "A, out=np.zeros(1)", "S", "D", "O", "C",
    "B", "R", "[[1, 2], [3]]", "Z3, Z3", "A, order='Q'", "A, casting='foo'", "A, kind='foo'",
    "A, mode='foo'", "S, S", "D, A", "A, S", "E", "A, (4, 5)", "A, shape=(7,)", "-1",
    "A3, A3, A3", "{}", "A, axis=(0, 0)", "F, F, F, F",
]

# Never called: they print, write files, change global state for the batch,
# start tests, or take minutes.
UNSAFE = {
    "test", "info", "source", "lookfor", "show_config", "show_runtime", "who", "disp",
    "set_printoptions", "set_string_function", "seterr", "seterrcall", "setbufsize",
    "save", "savez", "savez_compressed", "savetxt", "memmap", "tofile", "dump", "DataSource",
    "_add_newdoc_ufunc", "add_newdoc", "add_docstring", "deprecate", "safe_eval",
    "printoptions", "errstate", "get_include", "byte_bounds", "fromfile", "load", "loadtxt",
    "genfromtxt", "fromregex", "recfromtxt", "recfromcsv", "_get_promotion_state",
    "_set_promotion_state", "setdiff1d", "seed", "set_state", "bit_generator",
}

INTROSPECT_MODULES = ["numpy", "numpy.linalg", "numpy.fft", "numpy.random", "numpy.char",
                      "numpy.lib.stride_tricks", "numpy.lib.recfunctions"]


def importable(modname):
    import importlib
    try:
        importlib.import_module(modname)
        return True
    except ImportError:
        return False


def core_module():
    """numpy 2 moved numpy.core to numpy._core (numpy.core warns, then forwards)."""
    return "numpy._core" if importable("numpy._core") else "numpy.core"


def introspect_modules():
    # numpy.char is numpy.core.defchararray, importable by that name from 2.0 on
    return [m if m != "numpy.char" or importable(m) else "numpy.core.defchararray"
            for m in INTROSPECT_MODULES]


def introspection_programs():
    """(origin, source) for every public callable and ndarray method."""
    import importlib
    import numpy as np
    out = []
    for modname in introspect_modules():
        mod = importlib.import_module(modname)
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in sorted(set(names)):
            if name in UNSAFE or name.startswith("_"):
                continue
            obj = getattr(mod, name, None)
            if not callable(obj) or isinstance(obj, type) and issubclass(obj, BaseException):
                continue
            if isinstance(obj, np.ufunc):
                continue  # ufunc_programs covers them
            for args in BAD_ARGS:
                out.append((f"{modname}.{name}", f"import {modname}\n{modname}.{name}({args})"))
    for name in sorted(dir(np.ndarray)):
        if name.startswith("_") or name in UNSAFE or not callable(getattr(np.ndarray, name)):
            continue
        for recv in ("A", "S", "D", "O", "R", "E"):
            for args in BAD_ARGS[:20]:
                out.append((f"ndarray.{name}", f"{recv}.{name}({args})"))
    gen = np.random.default_rng(0)
    for name in sorted(dir(gen)):
        if name.startswith("_") or name in UNSAFE or not callable(getattr(gen, name)):
            continue
        for args in BAD_ARGS[:16]:
            out.append((f"Generator.{name}", f"rng.{name}({args})"))
    return out


OPERANDS = ["A", "F", "S", "Bt", "D", "TD", "O", "C", "B", "R", "'x'", "None"]


def ufunc_programs():
    """Every ufunc with mismatched operands, casting, out=, and its methods."""
    import numpy as np
    out = []
    for name in sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)):
        u = getattr(np, name)
        ops = OPERANDS if u.nin == 1 else [f"{a}, {b}" for a in OPERANDS[:10] for b in
                                            ("A", "S", "D", "R")]
        calls = [f"np.{name}({o})" for o in ops]
        extra = ", A" * (u.nin - 1)
        calls += [
            f"np.{name}(F{extra}, out=np.zeros((2, 3), dtype=int))",
            f"np.{name}(F{extra}, casting='no', dtype='i1')",
            f"np.{name}(A{extra}, dtype='S3')",
            f"np.{name}(A{extra}, signature=('l',) * {u.nargs + 1})",
            f"np.{name}(A{extra}, out=(np.zeros(2),) * {u.nout + 1})",
            f"np.{name}(A{extra}, where='x')",
            f"np.{name}(A{extra}, order='Z')",
            f"np.{name}(A{extra}, casting='cheap')",
            f"np.{name}(A{extra}, extobj=[1])",
            f"np.{name}(A{extra}, bogus=1)",
            f"np.{name}(A{extra}, A, A, A)",
            f"np.{name}(A{extra}, out=np.zeros((5, 5)))",
            f"np.{name}.reduce(A, axis=7)",
            f"np.{name}.reduce(S)",
            f"np.{name}.reduce(E, axis=0)",
            f"np.{name}.reduce(A, initial='x')",
            f"np.{name}.accumulate(Z3, axis=(0, 1))",
            f"np.{name}.accumulate(S)",
            f"np.{name}.reduceat(A, [0, 9])",
            f"np.{name}.reduceat(A, 'x')",
            f"np.{name}.outer(S, A)",
            f"np.{name}.at(A, [9], 1)",
            f"np.{name}.at(S, [0])",
            f"np.{name}.at(A, [0], S)",
        ]
        out += [(f"ufunc.{name}", c) for c in calls]
    return out


DTYPE_STRINGS = ["i7", "foo", "<>i4", "S-1", "U0x", "M8[xx]", "m8[3Y/2]", "datetime64[fs/0]",
                 "f16x", "(2,3)i4x", "i4,", "[('a','i4'),('a','i4')]", "V-3", "c7", "b2",
                 "O4", "a", "int0x", "M8[D][s]", "i4(2)", "i4 i4", "float129"]
DTYPE_OBJECTS = ["[('a', 'i4'), ('a', 'f8')]", "[('a', 'i4', -1)]", "{'names': ['a'], 'formats': []}",
                 "{'names': ['a'], 'formats': ['i4'], 'offsets': [-1]}", "[(1, 'i4')]",
                 "('i4', 'x')", "('i4', (2, -2))", "[('a',)]", "{'a': 'i4'}", "('i4', 'f8')",
                 "{'names': ['a', 'b'], 'formats': ['i4', 'i4'], 'offsets': [0, 0]}",
                 "np.dtype('i4', align='x')", "[('a', 'O')], True", "'i4', metadata=1",
                 "{'names': ['a'], 'formats': ['i4'], 'titles': ['a']}", "('U', 5)"]
DATETIME_STRINGS = ["2020-13-01", "2020-02-30", "2020-01-01T25:00", "2020-01-01T10:61",
                    "2020-01-01T10:00:61", "20x0", "2020-01-01 10:00 +25:00", "2020-1-1",
                    "2020-01-01T10:00:00.1234567891234567890Z", "2020-01-01Tx", "-", "2020-01-01+",
                    "2020-W01", "2020-01-01T10:00:00+0x:00", "2020-01-01T10Z99"]
DATETIME_UNITS = ["D", "s", "Y", "xx", "10ms", "2Q", "ps/3"]
EINSUM = ["ij,jk", "ij,jk->", "ij->ii", "i,i->j", "ij...,j", "i.j", "ij->ij->", "ab,bc->ac,",
          "A,B", "iij->j", "ij,jk->ikk", "...i,...i->...", "ij,k->ijkl", "ij->j i", "ij,jk->i?"]
INDEX = ["A[5]", "A[0, 7]", "A[0, 0, 0]", "A['x']", "A[1.5]", "A[[0, 9]]", "A[[True]]",
         "A[..., ...]", "A[:, [0, 1], [0]]", "A[np.array([[0]]), :, 1]", "A[None, 9]",
         "A[B]", "A[A > 0, 1.0]", "A[{}]", "A[0:1:0]", "A[object()]", "A3[np.array([1.5])]",
         "R['c']", "R[['a', 'c']]", "R[0]['z']", "A[()] ['x']", "A.flat[99]", "A.flat['x']",
         "S[5]", "D[9]", "np.int64(3)[0]", "A[[[0, 1]], [[0], [1], [2]]]",
         "A3[np.array([True, False])]", "A[-3]", "A.flat[[9]]"]
ASSIGN = ["A[5] = 1", "A[0] = [1, 2]", "A[:] = 'x'", "A[0, 0] = 'x'", "A3[[0, 1]] = [1, 2, 3]",
          "A[B] = 1", "R['a'] = 'x'", "R['c'] = 1", "D[0] = 'x'", "A.flat[99] = 1",
          "A[[0, 1]] = np.zeros((3, 3))", "S[0] = 1+2j; np.array([1])[0] = None",
          "A.shape = (4, 4)", "A.strides = (1,)", "A.dtype = 'S7'", "A.real = 'x'",
          "A.imag = 1", "np.zeros(3).flags.writeable = 2", "A.flags.foo = 1", "R.dtype = 'i8'"]
SHAPES = ["(4,)", "(-1, -1)", "(7, -1)", "('a',)", "(2, 3, -2)", "(1.5,)", "(2**40, 2**40)",
          "(None,)", "(-7,)"]


MISC = [
    "np.array([1, 2], ndmin=99)", "np.array(A, dtype=np.dtype('V0'))", "np.zeros(-1)",
    "np.empty((2, -3))", "np.zeros(3, order='X')", "np.arange(0, 10, 0)", "np.arange('a')",
    "np.arange(1, 2, 3, 4, 5)", "np.frombuffer(b'abc', dtype='i4')", "np.frombuffer(b'', 'O')",
    "np.frombuffer(b'abcd', offset=9)", "np.frombuffer(b'abcd', count=9)",
    "np.fromstring('1 2', sep=' ', dtype='O')", "np.fromstring(b'abc', dtype='i4')",
    "np.fromiter([1, 2], dtype='i4', count=5)", "np.fromiter([1], dtype='O', count=-2)",
    "np.fromiter(1, dtype='i4')", "np.fromiter([[1]], dtype='V')",
    "np.concatenate([A, A3])", "np.concatenate([A, Z3])", "np.concatenate([A, A], axis=5)",
    "np.concatenate([])", "np.concatenate([A], out=np.zeros(1))", "np.stack([A, A3])",
    "np.concatenate([A, A], axis=1, dtype='i4', out=np.zeros((2, 6)))",
    "np.copyto(A, F, casting='safe')", "np.copyto(A, A3)", "np.copyto(A, 1, where='x')",
    "np.empty(3).view('S7')", "A.view(np.dtype([('a', 'i8'), ('b', 'i8')]))",
    "F.T.view('S3')", "A.astype('M8[D]', casting='safe')", "S.astype(int)", "D.astype('m8[s]')",
    "np.array(['x']).astype('M8[D]')", "np.array(['1.5x']).astype(float)", "Bt.astype(np.int8)",
    "A.resize((9, 9))", "np.array([1, 2]).resize(-1)", "A.sort(axis=5)", "A.sort(kind='x')",
    "A.argsort(axis=9)", "np.partition(A, 9)", "np.argpartition(A3, [9])", "A.partition(1.5)",
    "np.searchsorted(A3, 1, side='x')", "np.searchsorted(A, 1)", "np.take(A, [99])",
    "np.take(A, [1], mode='x')", "np.take(A, [1], axis=5)", "np.put(A, [99], 1)",
    "np.put(np.zeros(0), [0], 1)", "np.choose([5], [A3, A3])", "np.choose(A3, [])",
    "np.choose([0, 1], [[1, 2]], mode='x')", "np.compress([True], A, axis=9)",
    "np.compress([1, 1, 1, 1, 1, 1, 1], A3)", "np.repeat(A, [1, 2, 3])", "np.repeat(A, -1)",
    "np.diagonal(A3)", "np.diagonal(A, axis1=0, axis2=0)", "np.trace(A3)", "np.swapaxes(A, 0, 5)",
    "np.transpose(A, (0, 0))", "np.transpose(A, (0, 1, 2))", "np.moveaxis(A, 0, 9)",
    "np.squeeze(A, axis=0)", "np.expand_dims(A, 9)", "np.broadcast_to(A, (3, 3))",
    "np.broadcast(A, A3)", "np.broadcast(*([A3] * 70))", "np.broadcast_arrays(A, A3)",
    "np.unravel_index(99, (2, 3))", "np.unravel_index(1.5, (2, 3))", "np.unravel_index(1, (2, -3))",
    "np.ravel_multi_index((9, 0), (2, 3))", "np.ravel_multi_index((0,), (2, 3))",
    "np.ravel_multi_index((0, 0), (2, 3), mode='x')", "np.ravel_multi_index((0, 0), (2, 3), order='x')",
    "np.bincount([-1])", "np.bincount([1.5])", "np.bincount([1], weights=[1, 2])",
    "np.bincount([1], minlength=-1)", "np.interp(1, [1, 2], [1])", "np.interp(1, [], [])",
    "np.packbits([1.5])", "np.packbits([1], axis=9)", "np.unpackbits(np.array([1.5]))",
    "np.unpackbits(np.array([1], 'u1'), count='x')", "np.unpackbits(np.array([1], 'u1'), bitorder='x')",
    "np.matmul(A, A)", "np.matmul(A, 1)", "np.matmul(S, S)", "np.dot(A, A)", "np.dot(A, A3)",
    "np.inner(A, A3)", "np.vdot(A, A3)", "np.dot(A, A.T, out=np.zeros((3, 3)))",
    "np.correlate(E.ravel(), A3)", "np.convolve([], A3)", "np.cumsum(A, axis=3)",
    "np.add.reduce(A, axis=(0, 0))", "np.maximum.reduce(E)", "np.minimum.reduce([])",
    "np.lexsort(A3, axis=9)", "np.lexsort([A3, [1, 2]])", "np.lexsort([])",
    "np.where(A)[5]", "np.where(A, 1)", "np.nonzero(np.int64(1))", "np.count_nonzero(A, axis=9)",
    "np.nditer(A, flags=['foo'])", "np.nditer(A, op_flags=['foo'])", "np.nditer([A, A3])",
    "np.nditer(A, order='x')", "np.nditer(A, casting='x')", "np.nditer(A, op_dtypes=['i1'])",
    "np.nditer(A, flags=['multi_index', 'c_index', 'f_index'])", "next(iter(np.nditer(E)))",
    "np.nditer(A, op_axes=[[0, 0]])", "np.nditer(A, itershape=(5, 5))", "np.nditer([])",
    "np.nditer(A, buffersize=-1).iternext(1)", "np.nditer(A).multi_index",
    "np.lib.stride_tricks.as_strided(A, strides=(1,))", "np.shares_memory(A, A, max_work=1)",
    "np.may_share_memory(A, 'x')", "np.datetime_as_string(D, unit='x')",
    "np.datetime_as_string(D, timezone='x')", "np.datetime_as_string(A)",
    "np.busday_offset('2020-01-04', 1)", "np.busday_offset('2020-01-01', 1, weekmask='1111')",
    "np.busday_offset('2020-01-01', 1, weekmask='x')", "np.busday_offset('2020-01-01', 1, roll='x')",
    "np.busday_count('2020-01-01', 'x')", "np.is_busday('2020-01-01', weekmask=[1, 2])",
    "np.busday_offset('2020-01-01', 1, holidays=['x'])", "np.busdaycalendar(weekmask='0000000')",
    "np.datetime64('2020', 'D') + np.timedelta64(1, 'M')", "np.timedelta64(1, 'Y') + np.timedelta64(1, 'D')",
    "np.datetime64('2020') - np.datetime64(1, 'xx')", "np.timedelta64('x')", "np.timedelta64(1.5, 'D')",
    "np.datetime64(2020.5, 'Y')", "np.datetime64('now', 'xx')", "np.datetime64('today', 's') + 'x'",
    "np.array([1], 'M8[D]') < np.array([1], 'm8[D]')", "np.datetime64(10**20, 'Y')",
    "np.array(['2020'], dtype='M8[xx]')", "np.array([1.5], dtype='M8[D]')", "np.dtype('M8[D]').type(object())",
    "np.char.add(S, A)", "np.char.multiply(S, 'x')", "np.char.center(S, 'x')", "np.char.zfill(S, 'x')",
    "np.char.encode(S, 'nope')", "np.char.decode(Bt, 'nope')", "np.char.join(A, S)", "np.char.str_len(A)",
    "np.char.array(A, itemsize=-1)", "np.char.chararray((2,), itemsize=-1)", "S + 1", "S * S",
    "np.core.multiarray.compare_chararrays(S, S, 'x', True)", "np.core.multiarray.compare_chararrays(A, S, '==', True)",
    "S < Bt", "np.array(['a'], 'U1') == np.array([b'a'], 'S1') + 1", "np.char.count(S, A)",
    "np.array([1, 2], dtype=[('a', 'i4')])", "np.array([(1, 2)], dtype=[('a', 'i4')])",
    "np.zeros(2, dtype=[('a', 'i4')]) + 1", "R + R", "R == A", "np.sort(R, order='z')",
    "np.sort(R, order=['a', 'a'])", "np.sort(R, order=1)", "R.getfield('i4', 99)", "R.setfield(1, 'i4', 99)",
    "np.lib.recfunctions.structured_to_unstructured(A)", "np.recarray((2,), formats='x')",
    "np.rec.fromarrays([A3, [1]], names='a,b')", "np.rec.array('x')", "np.core.records.fromstring(b'a', 'i4')",
    "np.int8(300)", "np.uint8(-1)", "np.int64('x')", "np.float32('x')", "np.complex64('1+2jx')",
    "np.float64(1) ** 'x'", "np.int64(1) << -1", "np.bool_(1) + 'x'", "np.int64(2) // np.int64(0)",
    "np.str_(1) < np.int64(1)", "np.void(-1)", "np.void(b'a', dtype='i4')", "np.clongdouble('x')",
    "int(np.array([1, 2]))", "float(np.array(['x']))", "complex(np.array([1, 2]))", "bool(A)",
    "len(np.int64(1))", "np.array(1)[0]", "iter(np.array(1))", "operator.index(np.array([1.5]))",
    "range(np.float64(1.5))", "hash(A)", "np.array([1, 2]).item(9)", "A.item('x')", "A.itemset(9, 1)",
    "A.tolist(1)", "A.tobytes(order='x')", "A.setflags(write=True, align=True, uic=True)",
    "np.array([1]).setflags(uic=True)", "A.__array_interface__['data'] = 1", "np.asarray(A, order='K', dtype=object).reshape(5)",
    "np.linalg.inv(np.zeros((2, 2)))", "np.linalg.solve(np.zeros((2, 2)), np.ones(2))", "np.linalg.cholesky(-np.eye(2))",
    "np.linalg.eig(S)", "np.linalg.svd(np.full((2, 2), np.nan))", "np.linalg.det(A)", "np.linalg.qr(A, mode='x')",
    "np.fft.fft(A, n=0)", "np.fft.fft(S)", "np.fft.irfft([], n=-1)", "np.fft.fftn(A, s=(1, 2, 3))",
    "np.einsum('ij', A, optimize='x')", "np.einsum(A, [0, 99])", "np.einsum(A, [0, 'x'])",
    "np.einsum(A, [0, 1], [0])", "np.einsum('ii', A)", "np.einsum('ij,jk', A, A)", "np.einsum('ij', A, out=np.zeros(1))",
    "np.einsum('i', A3, dtype='S1')", "np.einsum('i', A3, casting='no', dtype='i1')", "np.einsum('i', A3, order='x')",
    "np.einsum('ij', A, bogus=1)", "np.einsum()", "np.einsum(1)", "np.c_['x', A]", "np.r_['0,9', A]",
    "np.array([1, [2]])", "np.array([[1, 2], [3]], dtype=int)", "np.array(A, copy='x')",
    "np.array(A, order='x')", "np.array(A, like=1)", "np.asarray(A, like=A3)", "np.array([np.zeros((2, 2)), np.zeros((3, 3))])",
    "np.array([1], dtype='f8').astype('V3')", "np.array(object(), dtype=int)", "np.array('x', dtype=int)",
    "np.array([2**70])", "np.array([1], dtype='i1') + 2**70", "np.uint8(1) + (-300)", "np.array([-1]).astype('u1', casting='same_kind')",
    "np.result_type('x')", "np.result_type()", "np.promote_types('i4', 'x')", "np.promote_types('S1', 'M8')",
    "np.can_cast(A, 'i4', casting='x')", "np.can_cast(1, 'x')", "np.min_scalar_type('x')",
    "np.format_float_positional(1.0, precision=-1)", "np.format_float_scientific(1.0, pad_left=-1)",
    "np.format_float_positional('x')", "np.dragon4_positional(1.0)" ,
    "np.zeros(3).__array_function__(np.sum, (np.ndarray,), (), {})", "np.sum.__wrapped__(A, axis='x')",
    "np.core.overrides.array_function_dispatch(1)(2)", "np.lib.NumpyVersion('x')",
    "np.mean(A, axis=1.5)", "np.add.reduce(A, keepdims='x', axis=None, dtype='x')", "np.sum(A, axis='x')",
    "np.ones(3)[np.array([[1]], dtype=np.uint64) - 2]", "np.arange(10)[np.arange(12).reshape(3, 4)]",
    "np.empty(2**62, dtype='i8')", "np.zeros((2**31, 2**31))", "np.ones(2**40)",
    "np.random.RandomState('x')", "np.random.default_rng('x')", "rng.integers(5, 1)", "rng.choice([], 3)",
    "rng.normal(0, -1)", "rng.choice(3, 5, replace=False)", "rng.multinomial(3, [0.9, 0.9])",
    "np.random.seed(-1)", "np.random.shuffle(1)", "np.random.permutation('x')",
    "pickle.loads(pickle.dumps(A)[:-5])", "np.core.multiarray._reconstruct(np.ndarray, (0,), 'x')",
    "A.__setstate__((1, (2,), np.dtype('i8'), False, b'x'))", "A.__reduce_ex__('x')",
    "np.ndarray((2,), buffer=b'a')", "np.ndarray((2,), strides=(1, 1))", "np.ndarray((-1,))",
    "np.ndarray((2,), dtype='O', buffer=b'x' * 16)", "np.ndarray(shape=(2,), offset=-1, buffer=b'xx' * 8)",
    "memoryview(np.array([1], dtype=[('a', 'O')]))", "np.frombuffer(memoryview(b'ab')[::2])",
    "np.array(memoryview(b'ab').cast('B', (1, 2)), dtype='x')", "np.ctypeslib.as_array(1)",
    "np.iinfo('x')", "np.finfo('x')", "np.iinfo(float)", "np.finfo(int)",
    "np.polyfit([1], [1, 2], 1)", "np.poly1d([[[1]]])", "np.polyval(S, 1)",
    "np.pad(A, 1, mode='x')", "np.pad(A, -1)", "np.histogram(A, bins=-1)", "np.histogram(A, bins='x')",
    "np.digitize(A3, [[1]])", "np.digitize(A3, [3, 1, 2])", "np.select([A3], [])", "np.piecewise(A3, [A3], [1, 2, 3])",
    "np.apply_along_axis(len, 9, A)", "np.vectorize(len)(A)", "np.frompyfunc(len, 1, 1)(A)", "np.frompyfunc(len, -1, 1)",
    "np.frompyfunc(len, 1, 1).reduce(A)", "np.frompyfunc(len, 1, 1).at(A, [0])", "np.frompyfunc(1, 1, 1)",
    "np.array([1, 2, 3]) @ np.array([1, 2])", "A @= A", "A += F", "A //= 0.5 + 1j", "A <<= 1.5", "A3 **= -1",
    "np.array([1]) ** np.array([-1])", "np.power(2, -1)", "np.left_shift(1, 1.5)", "np.bitwise_and(F, 1)",
    "np.invert(F)", "np.logical_and(S, S)", "np.sqrt(S)", "np.isnan(S)", "np.isinf(D)", "np.signbit(C)",
    "np.floor(C)", "np.sign(O)", "np.gcd(F, F)", "np.clip(A, 'x', 'y')", "np.clip(S, 1, 2)",
    "np.absolute(O)", "np.negative(B)", "np.subtract(B, B)", "np.divide(D, D)", "np.multiply(D, D)",
    "np.add(D, D)", "np.heaviside(C, C)", "np.ldexp(F, F)", "np.frexp(C)", "np.modf(C)", "np.spacing(A)",
]


# Messages numpy's C builds in a local, picks in branches, raises through a
# helper or leaves to an exception class's __str__.
IDIOMS = (
    [f"{g}({a})" for g in ("np.matmul", "np.core._umath_tests.inner1d",
                           "np.core._umath_tests.matrix_multiply")
     for a in ("1, A", "A, 1", "A3, 2.5")] +
    [f"A[np.array({m})]" for m in ("[True, False, True]", "[[True, False]]", "[True] * 5")] +
    [f"A[:, np.array({m})]" for m in ("[True, False]", "[True] * 4")] +
    [f"R.__setitem__(0, {t})" for t in ("(1, 2, 3)", "(1,)", "()")] +
    [f"np.{c}[{a}]" for c in ("ndarray", "dtype", "number", "integer", "floating",
                              "complexfloating", "signedinteger", "inexact")
     for a in ("int, int, int", "int, int")] +
    [f"np.einsum(A, {s}, A)" for s in ("5", "'ij'", "None", "1.5")] +
    [f"np.matmul(A, A.T, keepdims=True, axes={a})" for a in
     ("[(0, 1), (0, 1), (0, 1)]", "[(0, 1), (0, 1), (0,)]")] +
    [f"np.matmul(A, A.T, axes={a})" for a in ("[(0,), (0,), (0,)]", "[(0, 1)]", "5", "[(0, 1), (0, 1), 5]")] +
    [f"np.broadcast_shapes({a}, {b})" for a, b in (("(2,)", "(3,)"), ("(2, 3)", "(4,)"),
                                                    ("(1, 2)", "(3, 1, 5)"))] +
    [f"np.dot({a}, {b})" for a, b in (("A", "A"), ("A3", "A"), ("np.ones((2, 2, 2))", "A3"))] +
    [f"np.linalg.{f}(np.ones((2, 3)))" for f in ("inv", "det", "eig", "cholesky", "slogdet")] +
    [f"np.add(np.ones({a}), np.ones({b}), out=np.ones({c}))" for a, b, c in
     (("3", "3", "4"), ("(2, 3)", "3", "(3, 2)"))] +
    [f"np.zeros({n}, dtype='i1').view([('a', 'i1')] * {k})" for n, k in ((3, 2), (5, 3))] +
    [f"np.core.multiarray.normalize_axis_index({a}, {n})" for a, n in ((5, 2), (-7, 3), (2, 0))] +
    [f"np.shares_memory(A, A[::-1], max_work={w})" for w in (1, 0)] +
    [f"np.empty({sh}, dtype={d})" for sh, d in (("(2**40, 2**20)", "'f8'"), ("(2**38,)", "'c16'"),
                                               ("(2**33, 2**4)", "'U9'"))]
)


RECEIVERS = {"A": "ndarray", "A3": "ndarray", "F": "ndarray", "C": "ndarray", "S": "ndarray",
             "Bt": "ndarray", "D": "ndarray", "TD": "ndarray", "O": "ndarray", "B": "ndarray",
             "R": "ndarray", "E": "ndarray", "Z3": "ndarray", "rng": "random.Generator"}


_FRESH = {}


def fresh_has(module, name):
    """Whether `module.name` works right after `import numpy` in a fresh
    interpreter (numpy 2 loads numpy.fft, numpy.char... on first access, but
    not numpy.lib.recfunctions or numpy._core._umath_tests)."""
    if (module, name) not in _FRESH:
        run = subprocess.run([PY, "-c", f"import importlib, numpy\n"
                              f"getattr(importlib.import_module({module!r}), {name!r})"],
                             capture_output=True)
        _FRESH[module, name] = run.returncode == 0
    return _FRESH[module, name]


def resolve(src):
    """(missing, imports): the first `np.a.b` (or prelude array attribute)
    this numpy does not have, or None (such a program fails with the test's
    AttributeError, not numpy's); and the numpy modules it names that a fresh
    `import numpy` leaves unloaded (numpy 2: numpy.lib.recfunctions,
    numpy._core._umath_tests)."""
    import importlib
    import inspect
    import warnings
    import numpy as np
    chains = [("np", m.group(1)) for m in re.finditer(r"(?<![\w.])np((?:\.\w+)+)", src)]
    chains += [(RECEIVERS[m.group(1)], "." + m.group(2))
               for m in re.finditer(r"(?<![\w.'\"])(\w+)\.(\w+)", src) if m.group(1) in RECEIVERS]
    imports = []
    for base, chain in chains:
        obj = np
        for part in (chain if base == "np" else "." + base + chain).split(".")[1:]:
            sub = obj.__name__ + "." + part if inspect.ismodule(obj) else None
            if sub and importable(sub) and not fresh_has(obj.__name__, part):
                imports.append(sub)
                obj = importlib.import_module(sub)
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    obj = getattr(obj, part)
            except AttributeError:
                return base + chain, imports
            except Exception:
                break  # a module's __getattr__ that raises otherwise: exists
    return None, imports


def scenario_programs():
    core = "np." + core_module().split(".", 1)[1]
    out = [("misc", m) for m in MISC] + [("idioms", m) for m in IDIOMS]
    out = [(o, m.replace("np.core.", core + ".")) for o, m in out]
    for s in DTYPE_STRINGS:
        out.append(("dtype", f"np.dtype({s!r})"))
        out.append(("dtype", f"np.zeros(2, dtype={s!r})"))
        out.append(("dtype", f"A.astype({s!r})"))
    out += [("dtype", f"np.dtype({o})") for o in DTYPE_OBJECTS]
    for s in DATETIME_STRINGS:
        out.append(("datetime", f"np.datetime64({s!r})"))
        out.append(("datetime", f"np.array([{s!r}], dtype='M8[s]')"))
    for u in DATETIME_UNITS:
        out.append(("datetime", f"np.datetime64('2020-01-01', {u!r})"))
        out.append(("datetime", f"np.timedelta64(1, {u!r}) + np.timedelta64(1, 'M')"))
        out.append(("datetime", f"D.astype('M8[{u}]', casting='safe')"))
    for e in EINSUM:
        out.append(("einsum", f"np.einsum({e!r}, A, A)"))
        out.append(("einsum", f"np.einsum({e!r}, A)"))
        out.append(("einsum", f"np.einsum({e!r}, Z3, A3, optimize=False)"))
    out += [("index", i) for i in INDEX] + [("assign", a) for a in ASSIGN]
    for s in SHAPES:
        out.append(("shape", f"A.reshape({s})"))
        out.append(("shape", f"np.zeros({s})"))
        out.append(("shape", f"np.broadcast_to(A3, {s})"))
        out.append(("shape", f"A.resize({s}, refcheck=False)"))
    kept, absent = [], {}
    for o, m in out:
        name, imports = resolve(m)
        if name:
            absent[m] = name
        else:
            kept.append((o, "".join(f"import {i}\n" for i in imports) + m))
    if absent:
        print(f"left out, {len(absent)} programs naming what this numpy does not have: " +
              ", ".join(sorted(set(absent.values()))), file=sys.stderr)
    return kept


# Runs programs given as JSON lines on stdin; one JSON line per program out.
WORKER = r"""
import json, resource, signal, sys, traceback, operator, pickle
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
PRELUDE = json.loads(sys.argv[1])
class Timeout(BaseException):
    pass
def alarm(*_):
    raise Timeout()
signal.signal(signal.SIGALRM, alarm)
for line in sys.stdin:
    job = json.loads(line)
    env = {"operator": operator, "pickle": pickle}
    res = {"i": job["i"]}
    try:
        signal.alarm(3)
        exec(compile(PRELUDE + job["src"], "<case>", "exec"), env)
        res["ok"] = True
    except Timeout:
        res["timeout"] = True
    except BaseException as e:
        res["type"] = type(e).__module__ + "." + type(e).__qualname__
        try:
            res["message"] = str(e)
        except BaseException:
            res["message"] = None
        tb = traceback.extract_tb(e.__traceback__)
        res["inner"] = [tb[-1].filename, tb[-1].lineno] if tb else None
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
    pending = list(range(len(programs)))
    lock = threading.Lock()
    chunks = [pending[k::jobs] for k in range(jobs)]

    def run(chunk):
        while chunk:
            with tempfile.TemporaryDirectory() as tmp:
                p = subprocess.Popen([PY, "-c", WORKER, json.dumps(PRELUDE)], cwd=tmp,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
                feed = "".join(json.dumps({"i": i, "src": programs[i][1]}) + "\n" for i in chunk)
                def write(feed=feed, p=p):
                    try:
                        p.stdin.write(feed)
                        p.stdin.close()
                    except (BrokenPipeError, OSError):
                        pass  # the worker died: the program it died on is noted below
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
    """The message with its values blanked: quoted text, numbers, dtypes."""
    m = re.sub(r"'[^']*'|\"[^\"]*\"", "Q", message or "")
    m = re.sub(r"dtype\([^)]*\)", "T", m)
    return re.sub(r"\d+", "N", m)


RUNNER = r"""
import json, resource, sys, traceback, operator, pickle
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
prog, out = sys.argv[1], sys.argv[2]
src = open(prog).read()
try:
    exec(compile(src, prog, "exec"), {"__name__": "__main__", "operator": operator,
                                      "pickle": pickle})
except BaseException as e:
    tb = traceback.extract_tb(e.__traceback__)
    t = type(e)
    json.dump({"type": (t.__module__ + "." if t.__module__ != "builtins" else "") + t.__qualname__,
               "printed": "".join(traceback.format_exception_only(t, e)),
               "message": str(e),
               "frames": [[f.filename, f.lineno, f.name] for f in tb]}, open(out, "w"))
    raise
"""


def numpy_root():
    out = subprocess.run([PY, "-c", "import numpy, os; print(os.path.dirname(numpy.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return os.path.dirname(out)  # the directory holding numpy/


_RAISE_LINES = {}


def raise_lines(path):
    """Lines of `path` where a raise or assert statement starts."""
    if path not in _RAISE_LINES:
        lines = set()
        try:
            tree = ast.parse(open(path, encoding="utf-8").read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.Raise, ast.Assert)):
                    lines.add(node.lineno)
        except (OSError, SyntaxError, ValueError):
            pass
        _RAISE_LINES[path] = lines
    return _RAISE_LINES[path]


def classify(frames, prog, root):
    """(group, innermost numpy frame as (path, line) or None)."""
    if not frames:
        return "other", None
    path, line, _ = frames[-1]
    if path == prog or path.startswith("<__array_function__"):
        return "c", None  # called from user code or numpy's generated dispatcher
    if path.endswith(".pyx") or path.endswith(".pxd") or path.endswith(".pxi"):
        return "cython", (path, line)
    if path.startswith(root + "/numpy/") and path.endswith(".py"):
        rel = os.path.relpath(path, root)
        if line in raise_lines(path):
            return "python", (rel, line)
        return "c", (rel, line)
    return "other", (path, line)


def fresh_run(origin, src, root, timeout):
    """Runs one program alone; the case, or None when it did not fail."""
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "prog.py")
        out = os.path.join(tmp, "out.json")
        with open(prog, "w") as f:
            f.write("import operator, pickle\n" + PRELUDE + src + "\n")
        runner = os.path.join(tmp, "runner.py")
        with open(runner, "w") as f:
            f.write(RUNNER)
        try:
            run = subprocess.run(["unshare", "-rn", PY, runner, prog, out], cwd=tmp,
                                 capture_output=True, text=True, errors="replace",
                                 timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        if run.returncode == 0 or not os.path.exists(out):
            return None
        info = json.load(open(out))
    group, inner = classify(info["frames"], prog, root)
    # The traceback as printed, the runner's own frame left out (a user's
    # traceback starts at their script).
    tb = run.stderr
    tb = re.sub(r'  File "[^"]*runner\.py", line \d+, in <module>\n(    .*\n)*?(?=  File)', "",
                tb)
    tb = tb.replace(prog, "/home/user/prog.py")
    return {"origin": origin, "program": src, "type": info["type"], "printed": info["printed"],
            "message": info["message"], "traceback": tb, "group": group,
            "inner": inner, "frames": [[os.path.relpath(p, root) if p.startswith(root + "/")
                                        else "/home/user/prog.py" if p == prog else p, n, fn]
                                       for p, n, fn in info["frames"][1:]]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--per-shape", type=int, default=3,
                    help="at most this many cases per message shape (values blanked)")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--limit", type=int, default=0, help="programs to try (0: all)")
    ap.add_argument("--scenarios-only", action="store_true",
                    help="no introspection, no ufunc sweep (a quick run)")
    args = ap.parse_args()
    from concurrent.futures import ThreadPoolExecutor
    programs = scenario_programs()
    if not args.scenarios_only:
        programs += ufunc_programs() + introspection_programs()
    if args.limit:
        programs = programs[:args.limit]
    t0 = time.time()
    found = discover(programs, args.jobs)
    stats = {"programs": len(programs), "succeeded": 0, "timeout": 0, "crash": 0,
             "program bug": 0, "duplicate message": 0, "over per-shape cap": 0}
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
        key = (r["type"], r["message"])
        if key in seen:
            stats["duplicate message"] += 1
            continue
        seen.add(key)
        sk = (r["type"], shape_of(r["message"]))
        per_shape[sk] = per_shape.get(sk, 0) + 1
        if per_shape[sk] > args.per_shape:
            stats["over per-shape cap"] += 1
            continue
        keep.append(i)
    print(f"discovery: {time.time() - t0:.0f}s, {len(keep)} programs to rerun", file=sys.stderr)
    root = numpy_root()
    with ThreadPoolExecutor(args.jobs) as pool:
        cases = list(pool.map(lambda i: fresh_run(programs[i][0], programs[i][1], root,
                                                  args.timeout), keep))
    stats["not reproduced alone"] = sum(c is None for c in cases)
    cases = [c for c in cases if c is not None]
    groups = {}
    for c in cases:
        groups[c["group"]] = groups.get(c["group"], 0) + 1
    stats["cases"] = len(cases)
    stats["groups"] = groups
    with open(args.out, "w") as f:
        for c in cases:
            f.write(json.dumps(c) + "\n")
    print(json.dumps(stats, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
