#!/usr/bin/env python3
"""Executed errors raised inside Cython code (numpy.random, scipy), and their score.

Every snippet below misuses a numpy.random or scipy API whose checks are
written in .pyx files. `run` executes each one in a worker interpreter
(Debian's numpy 1.24.2 / scipy 1.10.1 under /usr/bin/python3), keeps those
whose innermost frame is a Cython file (the error was raised in Cython, not
in a .py file), and writes one JSON line per case: type, message, the full
traceback as printed, and the Cython frames resolved to repository paths
independently of errdex (the dotted function name's package + the file's
basename, checked against the tag's file list, `.pyx.in` for Tempita
templates). `score` asks `errdex explain --json` twice per case -- the
message alone ("Type: message") and the whole traceback -- and counts the
top-1 match right when its type is the case's and one of its sites stands on
a Cython frame of the traceback (path and line; for a frame in a file
generated from a Tempita template, whose lines are not the template's, the
template's path). Snippets are written per API, not per message; a snippet
that fails in .py code or does not fail is dropped, not fixed.

Each case is labelled `raise` when the innermost frame's line in the tag's
source is a `raise` statement (or, in a Tempita template, the message's
longest run of words is in a raise of the template). Otherwise code below
that Cython line raised it, and two oracles that do not use errdex say whose
text it is: `interpreter` when a format string in the interpreter that ran
the case spells the whole message (`'int' object has no attribute ...`:
CPython's own text, left out of the headline as run_eval.py leaves out
interpreter-raised cases); `below` when string literals of the libraries' C
or Python sources spell it (numpy's "negative dimensions are not allowed" in
ctors.c, AxisError's __str__): right when the top match's type is the case's
and one of its sites is within 3 lines of such a literal, or, for text an
exception class of that type composes, when the type is the case's; else
`runtime`.

    /usr/bin/python3 bench/eval/cython_cases.py run --repo numpy/numpy=GITDIR:v1.24.2 \
        --repo scipy/scipy=GITDIR:v1.10.1 --out cases.jsonl
    python3 bench/eval/cython_cases.py score cases.jsonl --errdex ERRDEX --db catalog.db [--json] \
        [--repo ... as for run: label the cases again]
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

NUMPY = [
    # Generator: distributions with out-of-domain parameters
    "rng.normal(0, -1)", "rng.exponential(-1)", "rng.gamma(-1)", "rng.gamma(1, -1)",
    "rng.beta(0, 1)", "rng.beta(1, -1)", "rng.binomial(-1, 0.5)", "rng.binomial(10, 1.5)",
    "rng.poisson(-1)", "rng.poisson(1e20)", "rng.geometric(0)", "rng.geometric(1.5)",
    "rng.negative_binomial(-1, 0.5)", "rng.negative_binomial(1, 1.5)", "rng.zipf(1)",
    "rng.vonmises(0, -1)", "rng.wald(-1, 1)", "rng.wald(1, -1)", "rng.triangular(3, 1, 2)",
    "rng.triangular(1, 1, 1)", "rng.triangular(1, 3, 2)", "rng.chisquare(-1)", "rng.f(-1, 1)", "rng.f(1, -1)",
    "rng.noncentral_chisquare(-1, 1)", "rng.noncentral_chisquare(1, -1)", "rng.noncentral_f(1, 1, -1)",
    "rng.standard_t(-1)", "rng.weibull(-1)", "rng.pareto(-1)", "rng.power(-1)", "rng.laplace(0, -1)",
    "rng.gumbel(0, -1)", "rng.logistic(0, -1)", "rng.lognormal(0, -1)", "rng.rayleigh(-1)",
    "rng.standard_gamma(-1)", "rng.logseries(2)", "rng.logseries(-0.5)", "rng.hypergeometric(-1, 1, 1)",
    "rng.hypergeometric(1, 1, 5)", "rng.hypergeometric(1, -1, 1)", "rng.hypergeometric(1, 1, -1)",
    "rng.multinomial(-1, [0.5, 0.5])", "rng.multinomial(5, [0.7, 0.7])", "rng.dirichlet([-1, 1])",
    "rng.dirichlet([])", "rng.multivariate_hypergeometric([-1, 2], 1)",
    "rng.multivariate_hypergeometric([1, 2], 5)", "rng.multivariate_hypergeometric([1, 2], -1)",
    "rng.multivariate_hypergeometric([1, 2], 1, method='x')",
    "rng.multivariate_normal([0, 0], [[1, 0]])", "rng.multivariate_normal([[0]], [[1]])",
    "rng.multivariate_normal([0], [[1]], method='x')",
    "rng.integers(5, 1)", "rng.integers(0, 5, dtype='float')", "rng.integers(-1, 5, dtype=np.uint8)",
    "rng.integers(0, 300, dtype=np.uint8)", "rng.integers(np.array([5]), np.array([1]))",
    "rng.integers(np.array([-1]), 5, dtype=np.uint8)",
    "rng.choice(0)", "rng.choice([], 1)", "rng.choice(5, p=[0.5, 0.5])", "rng.choice(3, p=[0.5, 0.6, -0.1])",
    "rng.choice(3, p=[0.2, 0.2, 0.2])", "rng.choice(3, 5, replace=False)", "rng.choice(-1)",
    "rng.choice([[1, 2]], axis=3)", "rng.choice(3, p=[[0.5, 0.5]])", "rng.choice(3, shuffle=1, replace=False, size=1, p=[1, 0, 0])",
    "rng.random(dtype=np.int32)", "rng.standard_normal(dtype=np.int32)", "rng.standard_exponential(method='x')",
    "rng.standard_exponential(dtype=np.int32)", "rng.standard_gamma(1, dtype=np.int32)",
    "rng.random(out=np.zeros(3, dtype=np.float32))", "rng.random(size=4, out=np.zeros(3))",
    "rng.shuffle('abc')", "rng.shuffle(np.arange(3), axis=2)", "rng.permutation(np.arange(3), axis=2)",
    "rng.permuted(np.arange(3), axis=4)", "rng.permuted([[1, 2]], out=np.zeros(3))",
    "rng.bytes(-1)", "rng.uniform(0, np.inf)",
    "np.random.default_rng('x')", "np.random.Generator(1)", "np.random.SeedSequence(-1)",
    "np.random.SeedSequence(0).generate_state(1, dtype=np.int8)", "np.random.MT19937().jumped(-1)",
    "np.random.PCG64(0).advance(-1.5)", "np.random.MT19937(0).state = {}",
    "np.random.PCG64(0).state = {'bit_generator': 'X'}", "np.random.SFC64(0).state = 1",
    "np.random.Philox(0, counter=[0], key=[0])", "np.random.Philox(key=[1, 2, 3])",
    "np.random.MT19937(0)._legacy_seeding(-1)", "np.random.BitGenerator()",
    # RandomState (mtrand)
    "rs.choice(5, 10, replace=False)", "rs.choice(0)", "rs.choice(5, p=[0.5, 0.5])",
    "rs.choice(3, p=[0.2, 0.2, 0.2])", "rs.choice([[1, 2]])", "rs.choice(3, p=[0.5, 0.6, -0.1])",
    "rs.normal(0, -1)", "rs.exponential(-1)", "rs.gamma(-1)", "rs.beta(0, 1)", "rs.binomial(-1, 0.5)",
    "rs.binomial(10, 1.5)", "rs.poisson(-1)", "rs.poisson(1e20)", "rs.geometric(0)", "rs.zipf(1)",
    "rs.vonmises(0, -1)", "rs.wald(-1, 1)", "rs.triangular(3, 1, 2)", "rs.triangular(1, 1, 1)",
    "rs.chisquare(-1)", "rs.f(-1, 1)", "rs.noncentral_f(1, 1, -1)", "rs.standard_t(-1)",
    "rs.weibull(-1)", "rs.pareto(-1)", "rs.power(-1)", "rs.logseries(2)", "rs.hypergeometric(1, 1, 5)",
    "rs.hypergeometric(-1, 1, 1)", "rs.multinomial(5, [0.7, 0.7])", "rs.dirichlet([-1, 1])",
    "rs.multivariate_normal([0, 0], [[1, 0]])", "rs.randint(5, 1)", "rs.randint(0, 5, dtype='float')",
    "rs.randint(-1, 5, dtype=np.uint8)", "rs.random_integers(5, 1)", "rs.seed(-1)", "rs.seed('x')",
    "rs.set_state('x')", "rs.set_state(('MT19937', [1]))", "rs.set_state(('X', np.zeros(624, dtype=np.uint32), 0))",
    "rs.shuffle('abc')", "rs.permutation('abc')", "rs.bytes(-1)", "rs.tomaxint(-1)", "rs.rand(-1)",
    "rs.uniform(0, np.inf)", "rs.negative_binomial(-1, 0.5)", "rs.laplace(0, -1)", "rs.lognormal(0, -1)",
    "rs.noncentral_chisquare(-1, 1)", "np.random.RandomState('x')", "np.random.RandomState(-1)",
    "np.random.RandomState(np.random.MT19937()).set_state({'bit_generator': 'PCG64'})",
]

SCIPY = [
    # cKDTree
    "cKDTree(np.ones((3, 2)), leafsize=0)", "cKDTree(np.array([[np.nan, 1.0]]))",
    "cKDTree(np.ones((3, 2))).query([1, 1], p=0.5)", "cKDTree(np.ones((3, 2))).query([1, 1], k=0)",
    "cKDTree(np.ones((3, 2))).query([1, 1, 1])", "cKDTree(np.ones((3, 2))).query([1, 1], eps=-1)",
    "cKDTree(np.ones((3, 2))).query([1, 1], k=[0])", "cKDTree(np.ones((3, 2))).query([1, 1], k=1.5)",
    "cKDTree(np.ones((3, 2))).query_ball_point([1, 1, 1], 1)",
    "cKDTree(np.ones((3, 2))).query_ball_point([1, 1], 1, p=0.5)",
    "cKDTree(np.ones((3, 2))).query_ball_point([1, 1], 1, return_sorted=True, return_length=True)",
    "cKDTree(np.ones((3, 2))).query_ball_tree(cKDTree(np.ones((3, 3))), 1)",
    "cKDTree(np.ones((3, 2))).query_ball_tree(np.ones((3, 2)), 1)",
    "cKDTree(np.ones((3, 2))).query_pairs(1, output_type='x')",
    "cKDTree(np.ones((3, 2))).query_pairs(1, p=0.5)",
    "cKDTree(np.ones((3, 2))).count_neighbors(cKDTree(np.ones((3, 3))), 1)",
    "cKDTree(np.ones((3, 2))).count_neighbors(cKDTree(np.ones((3, 2))), [[1]])",
    "cKDTree(np.ones((3, 2))).count_neighbors(cKDTree(np.ones((3, 2))), 1, cumulative=False, weights=(1, 2, 3))",
    "cKDTree(np.ones((3, 2))).count_neighbors(cKDTree(np.ones((3, 2))), 1, weights=np.ones(5))",
    "cKDTree(np.ones((3, 2))).sparse_distance_matrix(cKDTree(np.ones((3, 3))), 1)",
    "cKDTree(np.ones((3, 2))).sparse_distance_matrix(cKDTree(np.ones((3, 2))), 1, output_type='x')",
    "cKDTree(np.ones((3, 2)), boxsize=-1)", "cKDTree(np.ones((3, 2)), boxsize=[1, 1, 1])",
    "cKDTree(np.ones((3, 2)) * 5, boxsize=1)",
    "cKDTree(np.ones((3, 2)), balanced_tree=False, compact_nodes=False).query([1, 1], distance_upper_bound=-1, k=0)",
    # Rotation / Slerp
    "R.from_quat([0, 0, 0, 0])", "R.from_quat([1, 2, 3])", "R.from_matrix(np.eye(2))",
    "R.from_rotvec([1, 2])", "R.from_mrp([1, 2])", "R.from_euler('xyzx', [1, 2, 3, 4])",
    "R.from_euler('xyz', [1, 2])", "R.from_euler('xXz', [1, 2, 3])", "R.from_euler('xxz', [1, 2, 3])",
    "R.identity().as_euler('xyzx')", "R.identity().as_euler('xxz')", "R.identity()[0]", "len(R.identity())",
    "R.identity().apply([1, 2])", "R.identity(3).apply(np.ones((2, 3)))", "R.identity() * 1",
    "R.concatenate([1])", "R.align_vectors([[1, 0]], [[1, 0]])", "R.align_vectors([[1, 0, 0]], [[1, 0, 0], [0, 1, 0]])",
    "R.align_vectors([[1, 0, 0]], [[1, 0, 0]], weights=[-1])", "R.from_euler('xyz', [1, 2, 3], degrees='x').as_quat()[5]",
    "R.identity(2) * R.identity(3)", "R.identity().reduce(left=1)", "R.random(-1)",
    "R.from_rotvec([1, 2, 3], degrees=True).magnitude()[5]", "R.identity().mean(weights=[-1])",
    "R.identity(2).mean(weights=[1])", "R.identity(2).__setitem__(0, 1)", "R.identity().__setitem__(0, R.identity())",
    "R.create_group('X')", "R.create_group('C2', axis='W')", "R.from_davenport([[1, 0, 0]], 'e', [1])",
    "Slerp([0], R.identity(1))", "Slerp([0, 1], R.identity(3))", "Slerp([1, 0], R.identity(2))",
    "Slerp([0, 1], R.identity(2))([2])", "Slerp([0, 1], R.identity())",
    "R.identity(3).from_quat(np.ones((2, 2, 4)))", "R.from_matrix(np.ones((2, 2, 3, 3)))",
    # csgraph
    "csgraph.shortest_path(np.ones((3, 3)), method='X')", "csgraph.shortest_path(np.ones((3, 3)), indices=5)",
    "csgraph.dijkstra(np.ones((3, 3)), indices=5)", "csgraph.dijkstra(np.ones((3, 3)), limit=-1)",
    "csgraph.dijkstra(np.ones((3, 3)), min_only=True, return_predecessors=True, indices=[7])",
    "csgraph.bellman_ford(-np.ones((3, 3)))", "csgraph.johnson(-np.ones((3, 3)))",
    "csgraph.floyd_warshall(np.ones((3, 4)))", "csgraph.shortest_path(-np.ones((3, 3)), method='D')",
    "csgraph.breadth_first_order(np.ones((3, 3)), 7)", "csgraph.depth_first_order(np.ones((3, 3)), 7)",
    "csgraph.breadth_first_tree(np.ones((3, 3)), 7)", "csgraph.connected_components(np.ones((3, 3)), connection='x')",
    "csgraph.minimum_spanning_tree(np.ones((3, 4)))", "csgraph.reverse_cuthill_mckee(sparse.csr_matrix(np.ones((3, 4))))",
    "csgraph.reverse_cuthill_mckee(np.ones((3, 3)))", "csgraph.structural_rank(sparse.csr_matrix(np.ones((3, 4))))",
    "csgraph.structural_rank(np.ones((3, 3)))",
    "csgraph.maximum_flow(sparse.csr_matrix(np.ones((3, 3))), 0, 1)",
    "csgraph.maximum_flow(sparse.csr_matrix(np.ones((3, 3), dtype=np.int32)), 0, 0)",
    "csgraph.maximum_flow(sparse.csr_matrix(np.ones((3, 3), dtype=np.int32)), 0, 7)",
    "csgraph.maximum_flow(sparse.csr_matrix(np.ones((3, 3), dtype=np.int32)), 0, 1, method='x')",
    "csgraph.maximum_flow(np.ones((3, 3), dtype=np.int32), 0, 1)",
    "csgraph.min_weight_full_bipartite_matching(sparse.csr_matrix(np.array([[1, 0], [1, 0]])))",
    "csgraph.min_weight_full_bipartite_matching(np.ones((2, 2)))",
    "csgraph.maximum_bipartite_matching(np.ones((2, 2)))",
    "csgraph.maximum_bipartite_matching(sparse.csr_matrix(np.ones((2, 2))), perm_type='x')",
    # Delaunay / ConvexHull / Voronoi (qhull)
    "Delaunay(np.zeros((2, 2)))", "Delaunay(np.ones((5, 1)))", "ConvexHull(np.zeros((2, 2)))",
    "Voronoi(np.zeros((2, 2)))", "Delaunay(np.array([[0, 0], [1, 0], [0, 1], [1, 1.0]]), qhull_options='Qz x')",
    "Delaunay(np.array([[0, 0], [1, 0], [0, 1.0]])).find_simplex(np.ones((2, 3)))",
    "Delaunay(np.array([[0, 0], [1, 0], [0, 1.0]]), incremental=True).add_points(np.ones((2, 3)))",
    "Delaunay(np.array([[0, 0], [1, 0], [0, 1.0]])).add_points([[1, 1]])",
    "HalfspaceIntersection(np.array([[-1, 0, 0], [0, -1, 0], [1, 1, -1.0]]), np.array([1.0, 1.0]))",
    "tsearch(np.ones((3, 3)), np.ones((2, 2)))",
    # interpolate (interpnd)
    "interpolate.LinearNDInterpolator(np.ones((3, 2)), np.ones(4))",
    "interpolate.CloughTocher2DInterpolator(np.random.rand(5, 3), np.ones(5))",
    "interpolate.LinearNDInterpolator(np.random.rand(5, 2), np.ones(5))(np.ones((2, 3)))",
    "interpolate.CloughTocher2DInterpolator(np.random.rand(5, 2), np.ones(5), tol=-1, maxiter=-1)(np.ones((2, 3)))",
    "interpolate.NearestNDInterpolator(np.ones((3, 2)), np.ones(4))",
    # cluster (_vq, _hierarchy)
    "cluster.vq.vq(np.ones((3, 2)), np.ones((2, 3)))", "cluster.vq.vq(np.ones((3, 2)), np.ones((2, 2, 2)))",
    "cluster.hierarchy.fcluster(np.zeros((1, 4)), 1, criterion='x')",
    "cluster.hierarchy.to_tree(np.zeros((1, 3)))", "cluster.hierarchy.linkage(np.ones((3, 2)), method='x')",
    # others in .pyx
    "signal.max_len_seq(1)", "signal.max_len_seq(8, state=np.zeros(8))", "signal.max_len_seq(8, taps=[9])",
    "stats.qmc.Sobol(d=0)", "stats.qmc.Sobol(d=2, bits=70)", "stats.qmc.Halton(d=0)",
    "stats.qmc.discrepancy(np.ones((3, 2)) * 2)", "stats.qmc.discrepancy(np.ones((3, 2)) / 2, method='x')",
    "stats.qmc.update_discrepancy(np.ones(3) / 2, np.ones((3, 2)) / 2, 1.0)",
    "optimize.linear_sum_assignment(np.ones((2, 2, 2)))",
    "io.matlab.loadmat(io_bytes(b'MATLAB 5.0 MAT-file' + b' ' * 97 + b'\\x00\\x01IM' + b'\\x0e\\x00\\x00\\x00\\xff\\xff\\xff\\x00'))",
    "sparse.csr_matrix(np.ones((2, 2)))[5, 5]", "sparse.csr_matrix(np.ones((2, 2)))[[5], [5]]",
    "ndimage.label(np.ones((2, 2)), structure=np.ones((3, 3, 3)))",
    "special.cython_special.agm(1, 1).x", "linalg.qr_update(np.eye(3), np.eye(3), np.ones(2), np.ones(3))",
    "linalg.qr_delete(np.eye(3), np.eye(3), 5)", "linalg.qr_insert(np.eye(3), np.eye(3), np.ones(3), 7)",
    "linalg.qr_delete(np.eye(3), np.eye(3), 0, which='x')", "linalg.qr_insert(np.eye(3), np.eye(3), np.ones(3), 0, which='x')",
    "linalg.qr_update(np.eye(3), np.eye(3), np.ones(3), np.ones(3), overwrite_qruv='x', check_finite=False)",
    "linalg.qr_delete(np.eye(3), np.eye(3), 0, p=-1)", "linalg.qr_update(np.eye(3), np.eye(2), np.ones(3), np.ones(3))",
    "stats.somersd([1, 2], [1, 2, 3])",
    "stats.rankdata(np.ones(3), method='x')",
    "interpolate.BSpline(np.arange(10.0), np.ones(6), 3).derivative(-1)",
    "interpolate._bspl.evaluate_all_bspl(np.arange(10.0), 3, 1.0, 99)",
    "stats._stats.von_mises_cdf(np.ones(2), np.ones(3))",
]

PRELUDE = """\
import numpy as np
rng = np.random.default_rng(0)
rs = np.random.RandomState(0)
"""
SCIPY_PRELUDE = PRELUDE + """\
import io as _io
import scipy
from scipy import sparse, interpolate, cluster, signal, stats, optimize, io, ndimage, special, linalg
import scipy.cluster.vq, scipy.cluster.hierarchy, scipy.stats.qmc, scipy.io.matlab, scipy.special.cython_special
from scipy.sparse import csgraph
from scipy.spatial import cKDTree, Delaunay, ConvexHull, Voronoi, HalfspaceIntersection, tsearch
from scipy.spatial.transform import Rotation as R, Slerp
import scipy.interpolate._bspl, scipy.stats._stats
io_bytes = _io.BytesIO
"""

WORKER = r"""
import json, sys, traceback
ns = {}
exec(json.loads(PRELUDE_JSON), ns)
for line in sys.stdin:
    code = json.loads(line)
    try:
        exec(compile(code, "<case>", "exec"), dict(ns))
        out = {"code": code, "ok": True}
    except BaseException as e:
        out = {"code": code, "ok": False, "type": type(e).__name__, "module": type(e).__module__,
               "message": str(e), "traceback": traceback.format_exc()}
    print(json.dumps(out), flush=True)
"""

FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)\s*$')
CYTHON = (".pyx", ".pxd", ".pxi")


def resolve(path, function, files):
    """The repository path of a Cython frame, independent of errdex's rule."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0]
    parts = function.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == stem:
            candidate = "/".join(parts[:i] + [base])
            for p in (candidate, candidate + ".in"):
                if p in files:
                    return p
    for f in files:  # a path printed with directories
        if path.endswith("/" + f) or path == f or (f.endswith(".in") and path.endswith(f[:-3])):
            return f
    return None


def git(gitdir, *argv):
    return subprocess.run(["git", "--git-dir", gitdir, *argv], capture_output=True, text=True,
                          check=True).stdout


def label(frame, message, repos):
    """`raise` when the source at the innermost frame raises, else `runtime`."""
    for gitdir, tag, files in repos:
        if frame["path"] not in files:
            continue
        text = git(gitdir, "cat-file", "blob", f"{tag}:{frame['path']}")
        if frame["path"].endswith(".in"):
            # The message's longest run of words ('k' is out of bounds: "is out of bounds").
            words = max((r.strip() for r in re.split(r"[^A-Za-z ]", message)), key=len, default="")[:20]
            raising = [l for l in text.splitlines() if "raise" in l]
            return "raise" if words and any(words in l for l in raising) else "runtime"
        lines = text.splitlines()
        line = lines[frame["line"] - 1] if 0 < frame["line"] <= len(lines) else ""
        return "raise" if re.search(r"\braise\b|PyErr_", line) else "runtime"
    return "runtime"


SOURCES = ("*.c", "*.h", "*.cpp", "*.cxx", "*.hpp", "*.c.src", "*.h.src", "*.py")
STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'')
# A printf conversion (CPython's %U/%R/%S included) or a Python {field}.
CONVERSION = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?"
                        r"[diouxXeEfgGcsSpRrAVU%]|\{[^{}]*\}")


def format_regex(text):
    """A naive regex of a format string: each conversion matches any text."""
    out, at = [], 0
    for m in CONVERSION.finditer(text):
        out.append(re.escape(text[at:m.start()]))
        out.append("%" if m.group() == "%%" else ".*?")
        at = m.end()
    out.append(re.escape(text[at:]))
    return "".join(out)


def word_runs(message):
    """The message's runs of two or more words, longest first."""
    return sorted({r.strip() for r in re.split(r"[^A-Za-z ]+", message) if len(r.split()) >= 2},
                  key=len, reverse=True)


def spelled_by(strings, message):
    """True when one of the strings, read as a format, spells the whole message."""
    return any(re.fullmatch(format_regex(t), message, re.S) for t in strings)


_INTERPRETER = {}


def interpreter_spells(message, python):
    """True when the interpreter that ran the cases carries a format string that
    spells the message: CPython's own text ('int' object has no attribute 'x'),
    which no library raise writes (the executable is the reference, not a list)."""
    if python not in _INTERPRETER:
        data = open(os.path.realpath(shutil.which(python) or python), "rb").read()
        _INTERPRETER[python] = [b.decode("ascii") for b in re.findall(rb"[\x20-\x7e]{6,}", data)]
    runs = word_runs(message)[:1] or [message]
    return spelled_by([t for t in _INTERPRETER[python] if runs[0] in t], message)


def library_sites(message, repos):
    """Lines of the libraries' C or Python sources whose string literals spell
    the whole message: an oracle for errors that library code below a Cython
    line raised (numpy's C, or a Python __str__ a C raise calls), independent
    of errdex's own template extraction."""
    found = set()
    for gitdir, tag, _ in repos:
        blobs = {}
        for run_text in word_runs(message)[:3]:
            p = subprocess.run(["git", "--git-dir", gitdir, "grep", "-n", "-F", "-e", run_text, tag,
                                "--", *SOURCES], capture_output=True, text=True)
            for hit in p.stdout.splitlines()[:200]:
                _, path, line, _ = hit.split(":", 3)
                if path not in blobs:
                    blobs[path] = git(gitdir, "cat-file", "blob", f"{tag}:{path}").splitlines()
                lines, n = blobs[path], int(line)
                window = " ".join(lines[max(0, n - 4):n + 3])
                literals = [(m.group(1) if m.group(1) is not None else m.group(2))
                            for m in STRING_LITERAL.finditer(window)]
                literals = [t.encode().decode("unicode_escape", "replace") for t in literals]
                for i in range(len(literals)):
                    if any(spelled_by(["".join(literals[i:j])], message)
                           for j in range(i + 1, min(len(literals), i + 4) + 1)):
                        found.add((path, n, enclosing_class(lines, n)))
    return sorted(found)


def enclosing_class(lines, n):
    """The class a Python line sits in (its __str__ composes the text), or None."""
    for line in reversed(lines[:n]):
        m = re.match(r"class\s+(\w+)", line)
        if m:
            return m.group(1)
    return None


def relabel(case, repos, python):
    """`raise` as label() said; a `runtime` case becomes `interpreter` when the
    interpreter spells its text (left out of the headline, like run_eval's
    interpreter-raised cases), `below` when library code under the Cython line
    spells it (its oracle sites kept for scoring), else stays `runtime`."""
    if case["label"] != "runtime":
        return case["label"]
    if interpreter_spells(case["message"], python):
        return "interpreter"
    case["library_sites"] = library_sites(case["message"], repos)
    return "below" if case["library_sites"] else "runtime"


def open_repos(specs):
    repos = []
    for spec in specs:
        _, where = spec.split("=", 1)
        gitdir, tag = where.rsplit(":", 1)
        repos.append((gitdir, tag, set(git(gitdir, "ls-tree", "-r", "--name-only", tag).split("\n"))))
    return repos


def run(args):
    repos = open_repos(args.repo)
    files = set().union(*(r[2] for r in repos))
    cases = []
    for library, prelude, snippets in (("numpy/numpy", PRELUDE, NUMPY),
                                       ("scipy/scipy", SCIPY_PRELUDE, SCIPY)):
        worker = WORKER.replace("PRELUDE_JSON", repr(json.dumps(prelude)))
        results = []
        todo = list(snippets)
        while todo:
            payload = "".join(json.dumps(s) + "\n" for s in todo)
            proc = subprocess.run([args.python, "-c", worker], input=payload, capture_output=True,
                                  text=True, timeout=600)
            done = [json.loads(line) for line in proc.stdout.splitlines()]
            results += done
            if proc.returncode == 0:
                break
            # The interpreter died (a segfault in old Cython code is no
            # exception): go on after the snippet that killed it.
            print(f"crashed ({proc.returncode}): {todo[len(done)]}", file=sys.stderr)
            todo = todo[len(done) + 1:]
        for r in results:
            if r["ok"]:
                continue
            frames = [m.groups() for m in map(FRAME.match, r["traceback"].splitlines()) if m]
            if not frames or not frames[-1][0].endswith(CYTHON):
                continue  # raised in Python (or in C below a .py frame)
            cy = []
            for path, lineno, function in frames:
                if path.endswith(CYTHON):
                    resolved = resolve(path, function, files)
                    if resolved:
                        cy.append({"path": resolved, "line": int(lineno), "function": function})
            if not cy or cy[-1]["function"] != frames[-1][2]:
                continue
            cases.append({"library": library, "code": r["code"], "type": r["type"],
                          "message": r["message"], "traceback": r["traceback"], "cython_frames": cy,
                          "label": label(cy[-1], r["message"], repos)})
            cases[-1]["label"] = relabel(cases[-1], repos, args.python)
    seen = set()
    with open(args.out, "w") as out:
        for c in cases:
            key = (c["type"], c["message"], c["cython_frames"][-1]["path"], c["cython_frames"][-1]["line"])
            if key in seen:
                continue  # the same error at the same place: one case
            seen.add(key)
            out.write(json.dumps(c) + "\n")
    print(f"{len(seen)} cases ({len(cases)} failing in Cython before dedup)", file=sys.stderr)


def explain(errdex, db, text):
    p = subprocess.run([errdex, "--db", db, "explain", "--json", "--top", "5", "-"], input=text,
                       capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 1):
        return []
    try:
        return json.loads(p.stdout).get("matches", [])
    except json.JSONDecodeError:
        return []


def right(match, case):
    if match.get("exception") != case["type"]:
        return False
    if case["label"] == "below":
        # Text a Python exception class composes (numpy's AxisError.__str__,
        # raised from C by name): any site of that type with a fitting template.
        if any(path.endswith(".py") and cls == case["type"] for path, _, cls in case["library_sites"]):
            return True
        return any(s["path"] == path and abs(s["line"] - line) <= 3
                   for s in match.get("sites", []) for path, line, _ in case["library_sites"])
    for s in match.get("sites", []):
        for f in case["cython_frames"]:
            if f["path"].endswith(".in"):
                if s["path"] == f["path"]:
                    return True
            elif s["path"] == f["path"] and s["line"] == f["line"]:
                return True
    return False


def score(args):
    cases = [json.loads(l) for l in open(args.cases) if l.strip()]
    if args.repo:
        repos = open_repos(args.repo)
        for c in cases:
            c["label"] = label(c["cython_frames"][-1], c["message"], repos)
            c["label"] = relabel(c, repos, args.python)
    tally = collections.Counter()
    misses = []
    for c in cases:
        lib = c["library"]
        keys = (lib, "all", "all: " + c["label"])
        if c["label"] != "interpreter":
            keys += ("all but the interpreter's own text",)
        for key in keys:
            tally["n", key] += 1
        for mode, text in (("message", f"{c['type']}: {c['message']}"), ("traceback", c["traceback"])):
            m = explain(args.errdex, args.db, text)
            ok = bool(m) and right(m[0], c)
            ok5 = any(right(x, c) for x in m)
            for key in keys:
                tally[mode, key] += ok
                tally[mode + "@5", key] += ok5
            if not ok:
                misses.append({"mode": mode, "label": c["label"], "code": c["code"], "type": c["type"], "message": c["message"],
                               "frame": c["cython_frames"][-1],
                               "top": {k: m[0].get(k) for k in ("exception", "template", "sites")} if m else None})
    rows = []
    for key in ("all but the interpreter's own text", "all", "all: raise", "all: below",
                "all: interpreter", "all: runtime", "numpy/numpy", "scipy/scipy"):
        n = tally["n", key]
        if n:
            rows.append({"set": key, "cases": n,
                         **{mode: round(100.0 * tally[mode, key] / n, 1)
                            for mode in ("message", "message@5", "traceback", "traceback@5")}})
    if args.json:
        print(json.dumps({"rows": rows, "misses": misses}, indent=1))
        return
    print("| set | cases | message top-1 | top-5 | traceback top-1 | top-5 |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['set']} | {r['cases']} | {r['message']}% | {r['message@5']}% | "
              f"{r['traceback']}% | {r['traceback@5']}% |")
    for m in misses:
        top = m["top"]
        print(f"- miss ({m['mode']}, {m['label']}): `{m['code']}` -> {m['type']}: {m['message'][:100]!r} at "
              f"{m['frame']['path']}:{m['frame']['line']}; top: "
              + (f"{top['exception']} {top['template'][:80]!r} {[(s['path'], s['line']) for s in top['sites'][:2]]}"
                 if top else "none"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--repo", action="append", required=True, help="LIBRARY=GITDIR:TAG (a bare clone will do)")
    r.add_argument("--out", required=True)
    r.add_argument("--python", default="/usr/bin/python3")
    s = sub.add_parser("score")
    s.add_argument("cases")
    s.add_argument("--errdex", required=True)
    s.add_argument("--db", required=True)
    s.add_argument("--json", action="store_true")
    s.add_argument("--repo", action="append", default=[],
                   help="LIBRARY=GITDIR:TAG: label the cases again (raise / below / interpreter) from the sources")
    s.add_argument("--python", default="/usr/bin/python3", help="the interpreter that ran the cases")
    args = ap.parse_args()
    run(args) if args.cmd == "run" else score(args)


if __name__ == "__main__":
    main()
