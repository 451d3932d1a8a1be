"""Hand-written snippets of realistic misuse, per library, for exec_cases.py.

exec_cases.py calls `libraries()` (the catalog names, e.g. "python/cpython",
"pypi/jinja2") and `programs(name)` (a list of complete Python programs, each
run on its own: it must fail, and the failure is kept when its innermost frame
lies in a library). Programs use no network and write only under the current
(temporary) directory.

Most entries are a template and a list of values: `each(lib, template, values)`
puts repr(value) in place of ARG, one program per value.
"""
S = {}
STD = "python/cpython"


def add(lib, *programs):
    S.setdefault(lib, []).extend(p.strip() + "\n" for p in programs)


def each(lib, template, values):
    add(lib, *[template.replace("ARG", repr(v)) for v in values])


def libraries():
    return sorted(S)


def programs(name):
    return list(S.get(name, []))


# ---------------------------------------------------------------- stdlib
each(STD, "import json\njson.loads(ARG)",
     ["{'a': 1}", '{"a": 1,}', "[1, 2", "", "nul", '{"a" 1}', '"\\x"', "[1,,2]",
      '{"a": NaN', "tru", '{"a":1}{"b":2}', '"abc', "[1] x", "{1: 2}"])
each(STD, "import json\njson.dumps(ARG)", [{1, 2}, b"x", object])
add(STD, "import json\njson.dumps({(1, 2): 3})",
    "import json\nd = {}\nd['self'] = d\njson.dumps(d)",
    "import json\njson.dumps(float('nan'), allow_nan=False)",
    "import json\njson.loads('{\"a\": 1}', parse_int=lambda s: 1/0)",
    "import json\njson.JSONDecoder().raw_decode('  [1]')")
each(STD, "import xml.etree.ElementTree as ET\nET.fromstring(ARG)",
     ["<a>", "<a></b>", "", "<a b=1/>", "<a>&foo;</a>", "<a/><b/>", "text", "<a x='1' x='2'/>",
      "<1a/>", "<a><!-- x --</a>"])
add(STD, "import xml.etree.ElementTree as ET\nET.fromstring('<a/>').find('//b[')",
    "import xml.etree.ElementTree as ET\nET.fromstring('<a/>').findall('b[@')",
    "import xml.etree.ElementTree as ET\nET.fromstring('<a/>').find('{ns')",
    "import xml.etree.ElementTree as ET\nET.fromstring('<a/>').find('/b')",
    "import xml.etree.ElementTree as ET\nET.fromstring('<a/>').iterfind('b[1+]')\n"
    "list(ET.fromstring('<a/>').iterfind('b[1+]'))",
    "import xml.etree.ElementTree as ET\nET.tostring(ET.Element('a', x=1))",
    "import xml.dom.minidom\nxml.dom.minidom.parseString('<a><b></a>')",
    "import xml.dom.minidom\nd = xml.dom.minidom.parseString('<a/>')\n"
    "d.documentElement.removeChild(d.createElement('x'))",
    "import xml.dom.minidom\nd = xml.dom.minidom.parseString('<a/>')\nd.appendChild(d.createElement('b'))",
    "import xml.sax\nxml.sax.parseString(b'<a>', xml.sax.ContentHandler())")
each(STD, "import tomllib\ntomllib.loads(ARG)",
     ["a = ", "a = 1\na = 2", "[t]\n[t]", "a = 'x", "a = [1, 2", "= 1", "a = {b = 1", "a.b = 1\na = 2",
      "a = 1979-05-27T25:00:00", "a = 0x", "[[a]]\n[a]", "a = \"\\q\""])
add(STD, "import tomllib\ntomllib.loads(b'a = 1')",
    "import tomllib, io\ntomllib.load(io.StringIO('a = 1'))")
ARGP = "import argparse\np = argparse.ArgumentParser(prog='tool', exit_on_error=False)\n"
add(STD, ARGP + "p.add_argument('--n', type=int)\np.parse_args(['--n', 'x'])",
    ARGP + "p.add_argument('--n')\np.add_argument('--n')",
    ARGP + "p.add_argument('-x', '--y', dest='z', action='bogus')",
    ARGP + "p.add_argument('x', nargs=0)",
    ARGP + "p.add_argument('--v', choices=['a', 'b'])\np.parse_args(['--v', 'c'])",
    ARGP + "p.add_argument('--v', action='store_true', type=int)",
    ARGP + "p.add_argument('pos', required=True)",
    ARGP + "p.add_argument('--n', nargs='x')",
    ARGP + "p.add_argument('--n', type='int')",
    ARGP + "p.add_argument('a', 'b')",
    ARGP + "p.add_argument('--n', default=1, action='count', nargs=2)",
    ARGP + "g = p.add_mutually_exclusive_group()\ng.add_argument('x')",
    ARGP + "g = p.add_mutually_exclusive_group()\ng.add_argument('--a')\n"
    "g.add_argument('--b')\np.parse_args(['--a', '1', '--b', '2'])",
    ARGP + "p.add_argument('--f', type=float)\np.parse_args(['--f', 'one'])",
    ARGP + "p.add_argument('--n', nargs=2)\np.parse_args(['--n', '1'])",
    ARGP + "p.add_argument('-n', '--num', metavar=('A', 'B'))",
    ARGP + "p.add_argument('--d', version='1')",
    ARGP + "s = p.add_subparsers()\ns.add_parser('a')\np.add_subparsers()",
    ARGP + "p.add_argument('--x', dest='y', action='append_const')",
    ARGP + "p.add_argument_group('g').add_argument('--x', help='%(bogus)s')\np.format_help()",
    ARGP + "p.add_argument('--x', type=argparse.FileType('r'))\np.parse_args(['--x', 'missing.txt'])")
UT = ("import unittest\nclass T(unittest.TestCase):\n    def runTest(self):\n        pass\n"
      "t = T()\n")
add(STD, *[UT + s for s in [
    "t.assertEqual(1, 2)", "t.assertEqual('abc', 'abd')", "t.assertEqual([1, 2], [1, 3])",
    "t.assertEqual({'a': 1}, {'a': 2})", "t.assertIn(3, [1, 2])", "t.assertNotIn(1, [1])",
    "t.assertTrue(0)", "t.assertFalse(1)", "t.assertIsNone(1)", "t.assertIsNotNone(None)",
    "t.assertIs(1, None)", "t.assertIsInstance(1, str)", "t.assertGreater(1, 2)",
    "t.assertLess(2, 1)", "t.assertAlmostEqual(1.0, 1.1)", "t.assertRegex('abc', 'x')",
    "t.assertCountEqual([1, 1], [1])", "t.assertDictEqual({}, {'a': 1})",
    "t.assertSetEqual({1}, {2})", "t.assertTupleEqual((1,), (2,))",
    "t.assertMultiLineEqual('a\\nb', 'a\\nc')", "t.assertSequenceEqual([1], [2])",
    "t.assertNotEqual(1, 1)", "t.fail('boom')", "t.assertListEqual([1], (1,))",
    "with t.assertRaises(ValueError):\n    pass",
    "with t.assertRaisesRegex(ValueError, 'x'):\n    raise ValueError('y')",
    "with t.assertWarns(UserWarning):\n    pass",
    "with t.assertLogs('x'):\n    pass", "t.assertAlmostEqual(1, 2, places=1, delta=1)",
    "t.skipTest('later')", "t.assertIsInstance(1, 'int')"]])
DEC = "import decimal\nfrom decimal import Decimal\n"
add(STD, *[DEC + s for s in [
    "Decimal('abc')", "Decimal('1') / Decimal('0')", "Decimal('0') / Decimal('0')",
    "Decimal('1.5').quantize(Decimal('1e-30'), context=decimal.Context(prec=5))",
    "Decimal('inf').quantize(Decimal('1'))", "Decimal('-1').sqrt()", "Decimal('-1').ln()",
    "decimal.getcontext().traps[decimal.Inexact] = True\nDecimal(1) / Decimal(3)",
    "decimal.getcontext().traps[decimal.Rounded] = True\n+Decimal('1.23456789012345678901234567890')",
    "decimal.Context(prec=-1)", "decimal.Context(rounding='up')", "Decimal(1.5).to_integral(rounding='x')",
    "Decimal('nan') < 1", "Decimal('sNaN') + 1", "int(Decimal('nan'))", "int(Decimal('inf'))",
    "Decimal((0, (1, 2), 'x'))", "Decimal('1e999999999') * Decimal('1e999999999')",
    "Decimal(1) % Decimal(0)", "Decimal(1).max(1.5)"]])
FR = "from fractions import Fraction\n"
add(STD, *[FR + s for s in ["Fraction(1, 0)", "Fraction('1/x')", "Fraction(1.5, 2)",
                            "Fraction(float('nan'))", "Fraction('')"]])
DT = "from datetime import datetime, date, time, timedelta, timezone\n"
add(STD, *[DT + s for s in [
    "datetime.strptime('2020-13-01', '%Y-%m-%d')", "datetime.strptime('2020/01/01', '%Y-%m-%d')",
    "datetime.strptime('2020-01-01 extra', '%Y-%m-%d')", "datetime.strptime('1', '%Q')",
    "datetime.strptime('31/02/2020', '%d/%m/%Y')", "datetime.strptime('10:61', '%H:%M')",
    "datetime.strptime('2020', '%Y %%')", "datetime.strptime('Mon', '%a %')",
    "datetime.fromisoformat('2020-1-1')", "datetime.fromisoformat('yesterday')",
    "date.fromisoformat('2020-02-30')", "time.fromisoformat('25:00')", "date(2020, 13, 1)",
    "datetime(2020, 1, 1, 24)", "timedelta(days=1e10)", "timezone(timedelta(hours=25))",
    "datetime.now() - datetime.now(timezone.utc)", "datetime.now() < datetime.now(timezone.utc)",
    "date.fromordinal(0)", "datetime.fromtimestamp(1e20)", "date(2020, 1, 1).replace(month=0)",
    "datetime.strptime('2020-01-01T00:00:00+25:00', '%Y-%m-%dT%H:%M:%S%z')",
    "import _strptime\n_strptime._strptime('x', '%Y')"]])
IP = "import ipaddress\n"
add(STD, *[IP + s for s in [
    "ipaddress.ip_address('256.1.1.1')", "ipaddress.ip_address('1.2.3')",
    "ipaddress.ip_network('10.0.0.1/24')", "ipaddress.ip_network('10.0.0.0/33')",
    "ipaddress.IPv4Address('01.2.3.4')", "ipaddress.IPv6Address('::1::2')",
    "ipaddress.IPv6Address('12345::')", "ipaddress.IPv4Network('1.2.3.0/255.0.255.0')",
    "ipaddress.ip_interface('x')", "ipaddress.IPv4Address(-1)", "ipaddress.IPv6Address(2**129)",
    "ipaddress.ip_network('10.0.0.0/8').subnets(prefixlen_diff=30, new_prefix=9)\n"
    "list(ipaddress.ip_network('10.0.0.0/8').subnets(prefixlen_diff=3, new_prefix=9))",
    "list(ipaddress.ip_network('10.0.0.0/24').subnets(new_prefix=8))",
    "ipaddress.ip_network('10.0.0.0/8').supernet(new_prefix=16)",
    "list(ipaddress.ip_network('10.0.0.0/8').address_exclude(ipaddress.ip_network('11.0.0.0/8')))",
    "ipaddress.ip_address('1.1.1.1') < ipaddress.ip_address('::1')",
    "list(ipaddress.summarize_address_range(ipaddress.ip_address('1.1.1.9'), ipaddress.ip_address('1.1.1.1')))",
    "ipaddress.IPv4Address('1.2.3.4%eth0')", "ipaddress.IPv6Address('fe80::1%')",
    "ipaddress.ip_network('1.2.3.4/x')", "ipaddress.IPv4Network(('1.2.3.0', 40))",
    "list(ipaddress.collapse_addresses([ipaddress.ip_address('1.1.1.1'), ipaddress.ip_network('::/0')]))"]])
CP = "import configparser\nc = configparser.ConfigParser()\n"
add(STD, *[CP + s for s in [
    "c.read_string('[a]\\nx=1\\nx=2')", "c.read_string('[a]\\n[a]')", "c.read_string('x=1')",
    "c.read_string('[a]\\n  bad line\\nnovalue')", "c.read_string('[a\\nx=1')",
    "c.read_string('[a]\\nx=%(y)s')\nc.get('a', 'x')", "c.read_string('[a]\\nx=%(x)s')\nc.get('a', 'x')",
    "c.read_string('[a]\\nx=50%')\nc.get('a', 'x')", "c.get('nosection', 'x')",
    "c.read_string('[a]')\nc.get('a', 'x')", "c.read_string('[a]\\nx=maybe')\nc.getboolean('a', 'x')",
    "c.read_string('[a]\\nx=1.5')\nc.getint('a', 'x')", "c.add_section('DEFAULT')",
    "c.add_section('a')\nc.add_section('a')", "c.set('a', 'x', '1')", "c.add_section(1)",
    "c.read_string('[a]')\nc.set('a', 'x', 1)", "c['a']",
    "c.read_string('[a]\\nx=${y}')\nc2 = configparser.ConfigParser(interpolation=configparser.ExtendedInterpolation())\n"
    "c2.read_string('[a]\\nx=${y}')\nc2.get('a', 'x')", "c.remove_option('z', 'x')"]])
add(STD, *["import email.utils\n" + s for s in [
    "email.utils.parsedate_to_datetime('not a date')", "email.utils.parsedate_to_datetime('')",
    "email.utils.format_datetime(__import__('datetime').datetime.now(), usegmt=True)",
    "email.utils.collapse_rfc2231_value(1)", "email.utils.make_msgid(domain=1)"]],
    "import email.headerregistry\nemail.headerregistry.Address('a b', 'x@y', 'z')",
    "import email.headerregistry\nemail.headerregistry.Address(addr_spec='@@')",
    "import email.message\nm = email.message.EmailMessage()\nm['To'] = 'a@b'\nm['To'] = 'c@d'",
    "import email.message\nm = email.message.EmailMessage()\nm.set_content(1)",
    "import email.message\nm = email.message.EmailMessage()\nm.set_content('x')\nm.add_related('y')\nm.make_mixed()\nm.make_related()",
    "import email.message\nm = email.message.Message()\nm.set_param('a', 'b', header='X', requote=False)\nm.get_payload(1)",
    "import email.message\nm = email.message.EmailMessage()\nm['Subject'] = 'a\\nb'",
    "import email.header\nemail.header.Header('x', 'bogus-charset')",
    "import email.charset\nemail.charset.Charset('no-such-codec-x')",
    "import email\nm = email.message_from_string('Subject: x\\n\\nbody')\nm.get_payload(0)",
    "import email.policy\nemail.policy.default.clone(bogus=1)",
    "import email.policy\nemail.policy.default.header_factory('Date', 'garbage').datetime.year")
SQ = "import sqlite3\ndb = sqlite3.connect(':memory:')\n"
add(STD, *[SQ + s for s in [
    "db.execute('SELEC 1')", "db.execute('select * from missing')",
    "db.execute('create table t(a)')\ndb.execute('insert into t values (?, ?)', (1, 2))",
    "db.execute('select ?', (1, 2))", "db.execute('select 1; select 2')",
    "db.execute('create table t(a unique)')\ndb.execute('insert into t values (1)')\n"
    "db.execute('insert into t values (1)')", "db.execute('select :a', {'b': 1})",
    "db.execute('select ?', ({},))", "db.close()\ndb.execute('select 1')",
    "db.execute('create table t(a not null)')\ndb.execute('insert into t values (null)')",
    "db.executemany('select ?', [(1,)])", "db.execute('select 1').fetchone()[1]",
    "db.row_factory = sqlite3.Row\ndb.execute('select 1 as a').fetchone()['b']",
    "db.execute('pragma foo = ')", "db.create_function('f', 1, lambda x: 1 / 0)\n"
    "db.execute('select f(1)').fetchone()", "db.execute(1)", "db.isolation_level = 'bogus'"]])
RE = "import re\n"
each(STD, RE + "re.compile(ARG)",
     ["(", "[a-", "a**", "(?P<n>x)(?P<n>y)", "\\", "(?<=a+)b", "x{2,1}", "(?P<1>x)",
      "[z-a]", "(?P=missing)", "\\k", "(?i", "a)", "*a", "(?#", "\\8", "(?<!a*)x", "[[:alpha:]"])
add(STD, *[RE + s for s in [
    "re.sub('(a)', '\\\\2', 'a')", "re.sub('a', '\\\\g<x>', 'a')", "re.match('(a)', 'a').group(2)",
    "re.match('(?P<a>x)', 'x').group('b')", "re.sub('x', 1, 'x')", "re.compile('x', flags=re.LOCALE)",
    "re.compile(b'x').match('x')", "re.escape(1)", "re.sub('a', '\\\\', 'a')",
    "re.match('a', 'a').expand('\\\\g<1>')"]])
PL = "import pathlib\np = pathlib.Path('data')\n"
add(STD, *[PL + s for s in [
    "p.read_text()", "p.mkdir()\np.mkdir()", "p.rmdir()", "p.with_suffix('txt')",
    "pathlib.Path('').with_name('x')", "pathlib.Path('a/b').relative_to('c')",
    "pathlib.PurePosixPath('/a').relative_to('b')", "p.with_name('')", "list(p.glob(''))",
    "list(p.glob('/abs'))", "p.touch()\np.iterdir().__next__()", "p.touch()\np.unlink()\np.unlink()",
    "p.mkdir()\np.touch(exist_ok=False)\n(p / 'x').touch()\np.rmdir()", "p.stat()",
    "p.touch()\np.mkdir(exist_ok=True)", "p.rename('b/c')", "p.samefile('q')",
    "p.with_stem('')", "pathlib.PurePath('a').joinpath(1)", "p.owner()", "p.readlink()"]])
each(STD, "import shlex\nshlex.split(ARG)",
     ["'unterminated", 'say "hi', "a \\", "x 'y", '"a" "b', "it's", None])
add(STD, "import shlex\nlex = shlex.shlex('a \"b', posix=True)\nlist(lex)",
    "import shlex\nshlex.quote(1)", "import shlex\nshlex.join([1])")
CSV = "import csv, io\n"
add(STD, *[CSV + s for s in [
    "list(csv.reader(io.StringIO('a,\"b\\n'), strict=True))",
    "list(csv.reader(io.StringIO('a\\0b')))", "csv.writer(io.StringIO(), quoting=csv.QUOTE_NONE).writerow(['a,b'])",
    "csv.reader(io.StringIO(''), delimiter='::')", "csv.reader(io.StringIO(''), quotechar='ab')",
    "csv.get_dialect('nope')", "csv.DictWriter(io.StringIO(), ['a']).writerow({'b': 1})",
    "csv.Sniffer().sniff('')", "csv.Sniffer().sniff('abc')", "csv.reader(io.StringIO(''), dialect='x')",
    "csv.field_size_limit(10)\nlist(csv.reader(io.StringIO('a' * 20)))",
    "csv.writer(io.StringIO()).writerow(1)", "csv.register_dialect('d', delimiter=1)",
    "list(csv.reader(io.StringIO('a\"b,c\\n'), strict=True))", "csv.writer(io.StringIO(), escapechar='ab')",
    "csv.DictReader(io.StringIO('a\\n1'), restkey=1).__next__()['z']"]])
ZF = "import zipfile, io\n"
add(STD, *[ZF + s for s in [
    "zipfile.ZipFile(io.BytesIO(b'not a zip'))", "zipfile.ZipFile('missing.zip')",
    "z = zipfile.ZipFile(io.BytesIO(), 'w')\nz.writestr('a', 'x')\nz.close()\nz.read('a')",
    "b = io.BytesIO()\nz = zipfile.ZipFile(b, 'w')\nz.writestr('a', 'x')\nz.close()\n"
    "zipfile.ZipFile(b).read('b')", "zipfile.ZipFile(io.BytesIO(), 'x2')",
    "zipfile.ZipFile(io.BytesIO(), 'w', compression=99)", "zipfile.ZipFile(io.BytesIO(), 'w').writestr('a', 1)",
    "b = io.BytesIO()\nz = zipfile.ZipFile(b, 'w')\nz.writestr('a', 'x')\nz.close()\n"
    "zipfile.ZipFile(b).open('a', 'w')", "zipfile.ZipInfo('a', (1970, 1, 1, 0, 0, 0))\n"
    "zipfile.ZipInfo('a', (1979, 1, 1, 0, 0, 0)).date_time\nzipfile.ZipFile(io.BytesIO(), 'w').writestr(zipfile.ZipInfo('a', (1970, 1, 1, 0, 0, 0)), 'x')",
    "b = io.BytesIO()\nz = zipfile.ZipFile(b, 'w')\nz.writestr('a', 'x')\nz.close()\n"
    "zipfile.ZipFile(b).setpassword('p')", "zipfile.Path(io.BytesIO(b'PK\\x05\\x06' + bytes(18))).joinpath('x').read_text()",
    "b = io.BytesIO()\nzipfile.ZipFile(b, 'w').close()\nzipfile.ZipFile(b, 'a').open('x', 'r')"]])
TF = "import tarfile, io\n"
add(STD, *[TF + s for s in [
    "tarfile.open(fileobj=io.BytesIO(b'junk' * 200))", "tarfile.open('missing.tar')",
    "tarfile.open(fileobj=io.BytesIO(), mode='r:xz2')", "tarfile.open(fileobj=io.BytesIO(), mode='q')",
    "t = tarfile.open('a.tar', 'w')\nt.close()\ntarfile.open('a.tar').getmember('x')",
    "t = tarfile.open('a.tar', 'w')\nt.add('missing')", "tarfile.open(fileobj=io.BytesIO(b'\\0' * 1024), mode='r:gz')",
    "t = tarfile.open('a.tar', 'w')\nt.close()\nt.add('.')", "tarfile.TarInfo('a').tobuf(format=9)",
    "t = tarfile.open('a.tar', 'w')\ni = tarfile.TarInfo('x')\ni.size = 10\nt.addfile(i, io.BytesIO(b'ab'))",
    "t = tarfile.open('a.tar', 'w')\nt.close()\ntarfile.open('a.tar', 'r').extractfile('x')",
    "t = tarfile.open('a.tar', 'w')\ni = tarfile.TarInfo('../x')\nt.addfile(i, io.BytesIO(b''))\nt.close()\n"
    "tarfile.open('a.tar').extractall('out', filter='data')",
    "t = tarfile.open('a.tar', 'w')\ni = tarfile.TarInfo('/abs')\nt.addfile(i, io.BytesIO(b''))\nt.close()\n"
    "tarfile.open('a.tar').extractall('out', filter='data')",
    "tarfile.open('a.tar', 'w').extractall(filter='bogus')"]])

# ---------------------------------------------------------------- packages
J2 = "import jinja2\nenv = jinja2.Environment(undefined=jinja2.StrictUndefined)\n"
each("pypi/jinja2", J2 + "env.from_string(ARG)",
     ["{{ x", "{% if x %}", "{% for x in y %}", "{% endfor %}", "{{ x | nofilter }}",
      "{% block a %}{% block a %}{% endblock %}{% endblock %}", "{% extends %}", "{{ x is notatest }}",
      "{% set %}", "{{ 1 + }}", "{% macro m( %}", "{% raw %}", "{{ x.1a }}", "{% include %}",
      "{% bogus %}", "{{ (1, }}", "{% for %}{% endfor %}", "{% if x %}{% else %}{% else %}{% endif %}",
      "{{ x }}}}{%", "{% with %}", "{% call %}", "{% filter %}", "{{ 'a' ~ }}", "{{ x[ }}"])
add("pypi/jinja2", *[J2 + s for s in [
    "env.from_string('{{ x }}').render()", "env.from_string('{{ x.y }}').render(x={})",
    "env.from_string('{{ x + 1 }}').render()", "env.from_string('{% for a in x %}{% endfor %}').render()",
    "env.from_string('{{ x() }}').render()", "env.from_string('{{ x | length }}').render()",
    "env.get_template('missing.html')", "jinja2.Environment(loader=jinja2.DictLoader({})).get_template('a')",
    "jinja2.Environment(loader=jinja2.FileSystemLoader('.')).get_template('no.html')",
    "jinja2.Environment(loader=jinja2.DictLoader({'a': '{% extends \"b\" %}'})).get_template('a').render()",
    "env.from_string('{{ x | int(base=\"q\") }}').render(x='1')",
    "env.from_string('{{ 1 | attr }}').render()", "env.from_string('{{ [] | first | upper }}').render()",
    "env.from_string('{{ \"a\" | batch(0) | list }}').render()",
    "env.from_string('{{ range(10**9) | list }}').render()",
    "env.from_string('{{ x | map(\"nofilter\") | list }}').render(x=[1])",
    "env.from_string('{{ x | selectattr(\"a\", \"nosuchtest\") | list }}').render(x=[{}])",
    "env.from_string('{{ x | sum(attribute=\"a\") }}').render(x=[{}])",
    "env.from_string('{{ x | dictsort(by=\"z\") }}').render(x={'a': 1})",
    "env.from_string('{{ 1 / 0 }}').render()", "env.from_string('{{ x | groupby(\"a\") }}').render(x=[{}])",
    "env.from_string('{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}').render()",
    "env.from_string('{% macro m(a) %}{% endmacro %}{{ m(b=1) }}').render()",
    "env.from_string('{{ x.__class__ }}').render(x=1)",
    "jinja2.sandbox.SandboxedEnvironment().from_string('{{ x.__class__.__mro__ }}').render(x=1)\n",
    "import jinja2.sandbox\njinja2.sandbox.SandboxedEnvironment().from_string('{{ f.__globals__ }}').render(f=lambda: 1)",
    "import jinja2.sandbox\njinja2.sandbox.SandboxedEnvironment().from_string('{{ x.append(1) }}').render(x=[])",
    "jinja2.Environment(extensions=['no.such.Ext'])", "jinja2.Environment(block_start_string='{{')\n"
    "jinja2.Environment(block_start_string='{{').from_string('x')",
    "env.from_string('{{ x | tojson }}').render(x=object())", "env.from_string('{{ x | round(\"a\") }}').render(x=1.5)",
    "env.from_string('{{ x | truncate(1, leeway=-1) }}').render(x='abc')",
    "env.from_string('{{ x | indent(\"a\") }}').render(x='abc')",
    "jinja2.Template('{% for %}')", "jinja2.Template('{{ x }}', undefined=jinja2.StrictUndefined).render()",
    "env.from_string('{% import \"x\" as y %}').render()",
    "env.from_string('{{ super() }}').render()", "env.from_string('{{ self.missing() }}').render()"]])
YM = "import yaml\n"
each("pypi/yaml", YM + "yaml.safe_load(ARG)",
     ["a: b: c", "- a\nb: c", "key: [1, 2", "a: {b: 1", "'unterminated", "a:\n\t- b", "!!python/object:os.system x",
      "a: *missing", "&a [*a]\n: x", "? [a\n", "a: 1\n a: 2", "%YAML 2.0\n---\na", "%TAG ! x\n%TAG ! y\n--- a",
      "!!binary xyz=", "!!int abc", "!!float x", "!!timestamp x", "{a: 1, b}: c", "a: |\n x\n  y\n z",
      "\"\\q\"", "- [\n", "!!map [1]", "!!seq {a: 1}", "!!set [1]", "@reserved", "`tick", "a: b\n- c",
      "!!omap {a: 1}", "!!pairs [1]", "--- !<tag:yaml.org,2002:bogus> x", "a: !!str\n  b: c"])
add("pypi/yaml", *[YM + s for s in [
    "yaml.safe_dump(object())", "yaml.safe_dump({'a': set()}, default_flow_style=None)\nyaml.safe_dump(lambda: 1)",
    "yaml.load('a: 1')", "yaml.load('a: 1', Loader=None)", "yaml.safe_load(b'\\xff\\xfe\\x00\\x00a')",
    "yaml.safe_load('a\\x00b')", "yaml.safe_load('\\x07')", "yaml.safe_load(1)",
    "yaml.dump({'a': 1}, Dumper=yaml.SafeDumper, indent=0)", "yaml.compose('a: 1\\n---\\nb')\n"
    "yaml.safe_load('a\\n---\\nb')", "yaml.full_load('!!python/name:os.nope x')",
    "yaml.unsafe_load('!!python/name:nosuchmod.x x')", "yaml.unsafe_load('!!python/object/apply:int [a, b, c, d]')",
    "yaml.safe_load_all('a\\n---\\n: [')\nlist(yaml.safe_load_all('a\\n---\\nb: [c'))",
    "yaml.SafeLoader('x').get_single_node()\nyaml.SafeLoader('a\\n---\\nb').get_single_node()"]])
CK = ("import click\n@click.command()\n@click.option('--n', type=int)\n"
      "@click.option('--c', type=click.Choice(['a', 'b']))\n@click.option('--r', type=click.IntRange(0, 5))\n"
      "@click.option('--p', type=click.Path(exists=True))\n@click.option('--f', type=float)\n"
      "@click.option('--d', type=click.DateTime())\n@click.option('--u', type=click.UUID)\n"
      "@click.option('--b', type=bool)\n@click.option('--t', type=(int, str))\n"
      "@click.option('--req', required=False)\n@click.argument('name', required=False)\n"
      "def cli(**kw):\n    pass\n")
each("pypi/click", CK + "cli.main(ARG, standalone_mode=False)",
     [["--n", "x"], ["--c", "z"], ["--r", "9"], ["--p", "nope"], ["--f", "one"], ["--d", "2020-99"],
      ["--u", "not-uuid"], ["--b", "maybe"], ["--t", "1"], ["--bogus"], ["--n"], ["a", "b"],
      ["--t", "x", "y"], ["--r", "-1"], ["--nn", "1"]])
add("pypi/click", *["import click\n" + s for s in [
    "@click.command()\n@click.option('--x', required=True)\ndef c(x):\n    pass\nc.main([], standalone_mode=False)",
    "@click.command()\n@click.argument('x')\ndef c(x):\n    pass\nc.main([], standalone_mode=False)",
    "@click.group()\ndef g():\n    pass\ng.main(['nosuch'], standalone_mode=False)",
    "@click.command()\n@click.option('--x', type=click.File('r'))\ndef c(x):\n    pass\n"
    "c.main(['--x', 'missing.txt'], standalone_mode=False)",
    "@click.command()\n@click.option('--x', nargs=2)\ndef c(x):\n    pass\nc.main(['--x', '1'], standalone_mode=False)",
    "@click.command()\n@click.option('--x', is_flag=True, nargs=2)\ndef c(x):\n    pass",
    "@click.command()\n@click.option('x')\ndef c(x):\n    pass",
    "@click.command()\n@click.option('--x', type=click.IntRange(min=1, clamp=True), multiple=True, nargs=-1)\ndef c(x):\n    pass",
    "@click.command()\n@click.argument('x', nargs=-1, default=1)\ndef c(x):\n    pass",
    "@click.command()\n@click.option('--x', prompt=True, is_flag=True, flag_value=1, count=True)\ndef c(x):\n    pass",
    "@click.command()\n@click.password_option()\ndef c(password):\n    pass\nc.main([], standalone_mode=False)",
    "click.Choice(['a']).convert('b', None, None)", "click.IntRange(1, 2).convert('5', None, None)",
    "click.FloatRange(0, 1, min_open=True).convert('0', None, None)", "click.INT.convert('q', None, None)",
    "click.BOOL.convert('perhaps', None, None)", "click.UUID.convert('x', None, None)",
    "click.DateTime(['%Y']).convert('x', None, None)", "click.Path(exists=True).convert('nope', None, None)",
    "click.Path(dir_okay=False).convert('.', None, None)", "click.Path(file_okay=False).convert(__file__ if '__file__' in dir() else 'x', None, None)\n"
    "open('f', 'w').close()\nclick.Path(file_okay=False).convert('f', None, None)",
    "click.get_current_context()", "click.Tuple([int, int]).convert(('1',), None, None)",
    "click.BadParameter('bad').show()\nraise click.BadParameter('bad')",
    "click.File('r').convert('missing', None, None)", "click.format_filename(1)",
    "@click.command()\n@click.option('--x', type=click.Choice(['a']), multiple=True)\ndef c(x):\n    pass\n"
    "c.main(['--x', 'a', '--x', 'b'], standalone_mode=False)",
    "@click.command(context_settings={'ignore_unknown_options': False})\n@click.option('--v', count=True)\n"
    "def c(v):\n    pass\nc.main(['-vvv', '-z'], standalone_mode=False)",
    "@click.command()\n@click.option('--x', callback=lambda c, p, v: (_ for _ in ()).throw(click.BadParameter('nope')))\n"
    "def c(x):\n    pass\nc.main(['--x', '1'], standalone_mode=False)",
    "@click.command()\n@click.option('--x', envvar='X', type=int)\ndef c(x):\n    pass\n"
    "import os\nos.environ['X'] = 'q'\nc.main([], standalone_mode=False)"]])
NX = "import networkx as nx\nG = nx.path_graph(4)\nD = nx.DiGraph([(0, 1), (1, 2), (2, 0)])\n"
add("pypi/networkx", *[NX + s for s in [
    "nx.shortest_path(G, 0, 9)", "G.add_edge(5, 6)\nnx.shortest_path(G, 0, 5)", "G.remove_node(9)",
    "G.remove_edge(0, 3)", "nx.topological_sort(D)\nlist(nx.topological_sort(D))", "nx.find_cycle(G)",
    "nx.dijkstra_path(G, 0, 99)", "G.add_edge(0, 1, weight=-1)\nnx.dijkstra_path(G, 0, 3)\n"
    "nx.bellman_ford_path(nx.DiGraph([(0, 1, {'weight': -1}), (1, 0, {'weight': -1})]), 0, 1)",
    "nx.diameter(nx.Graph([(0, 1), (2, 3)]))", "nx.eccentricity(nx.Graph([(0, 1), (2, 3)]))",
    "nx.is_connected(nx.DiGraph())", "nx.is_connected(nx.Graph())", "nx.bipartite.sets(nx.complete_graph(3))",
    "nx.eulerian_circuit(G)\nlist(nx.eulerian_circuit(G))", "nx.topological_sort(G)\nlist(nx.topological_sort(G))",
    "nx.adjacency_matrix(G, nodelist=[0, 0])", "nx.relabel_nodes(G, {0: 1}, copy=False)\nnx.shortest_path(G, 0, 1)",
    "nx.minimum_spanning_tree(D)", "nx.ancestors(G, 99)", "nx.descendants(D, 99)", "G.neighbors(99)",
    "G.nodes[99]", "G.edges[0, 3]", "nx.dag_longest_path(D)", "nx.strongly_connected_components(G)\n"
    "list(nx.strongly_connected_components(G))", "nx.average_shortest_path_length(nx.Graph([(0, 1), (2, 3)]))",
    "nx.pagerank(G, max_iter=1, tol=0)", "nx.eigenvector_centrality(nx.DiGraph([(0, 1)]), max_iter=2)",
    "nx.to_numpy_array(G)", "nx.barabasi_albert_graph(3, 5)", "nx.complete_graph(-1)\nnx.grid_graph([])\n"
    "nx.random_regular_graph(3, 5)", "nx.hamiltonian_path(G)", "nx.maximal_independent_set(G, [0, 1])",
    "nx.single_source_shortest_path_length(G, 99)", "nx.bfs_edges(G, 99)\nlist(nx.bfs_edges(G, 99))",
    "nx.dfs_tree(G, 99)", "nx.from_dict_of_lists({0: 1})", "nx.add_path(G, [])\nnx.path_weight(G, [0, 3], 'weight')",
    "nx.is_simple_path(G, 1)\nnx.node_connected_component(G, 99)", "nx.lowest_common_ancestor(G, 0, 1)",
    "nx.subgraph(G, [0]).add_node(5)", "nx.freeze(G)\nG.add_node(7)", "nx.astar_path(G, 0, 99)",
    "nx.max_weight_matching(D)", "nx.algorithms.isomorphism.GraphMatcher(G, D)\nnx.is_isomorphic(G, D)",
    "nx.condensation(G)", "nx.union(G, G)", "nx.compose(G, D)", "nx.to_dict_of_lists(G, nodelist=[9])\n"
    "nx.to_scipy_sparse_array(G)", "nx.graph_edit_distance(G, G, timeout=-1)\nnx.transitive_reduction(G)",
    "nx.is_tree(nx.Graph())", "nx.center(nx.DiGraph([(0, 1)]))", "nx.dominating_set(G, 99)"]])
SY = "import sympy\nfrom sympy import symbols, Matrix, sympify, Symbol\nx, y = symbols('x y')\n"
each("pypi/sympy", SY + "sympify(ARG)", ["x +", "2**", "x y z )", "(", "lambda", "import os", "x = 1", "if"])
add("pypi/sympy", *[SY + s for s in [
    "Matrix([[1, 2], [2, 4]]).inv()", "Matrix([[1, 2]]) * Matrix([[1, 2]])", "Matrix([[1, 2], [3]])",
    "Matrix([[1, 2]]).det()", "Matrix([[1, 2], [3, 4]])[5]", "Matrix([[1, 2]]) + Matrix([[1]])",
    "Matrix.zeros(2, 2).LUsolve(Matrix([1, 2]))", "Matrix([[1, 2], [3, 4]]).row_del(5)",
    "Matrix([[1, 2]]).reshape(3, 3)", "Matrix([[1, 0], [0, 0]]).cholesky()", "Matrix(2, 2, [1, 2, 3])",
    "Matrix([[x]]).jacobian(1)", "sympy.solve(x**2 - 1, 1)", "sympy.integrate(x, (x, 1))",
    "sympy.diff(x, 1.5)", "sympy.limit(x, x, 0, dir='?')", "sympy.Poly(x**2, 1.5)", "sympy.Poly(1/x, x)",
    "sympy.degree(x**2 + y, gen=3)", "sympy.factorial(-1).n()\nsympy.binomial(x, 1.5).n(strict=True)",
    "sympy.Rational(1, 0)\nsympy.Rational('1/x')", "sympy.Integer('abc')", "sympy.Interval(2, 1, 3)",
    "sympy.FiniteSet(1) < 1", "sympy.sqrt(x) < sympy.I", "bool(x < 1)", "int(x)", "float(x)",
    "sympy.Symbol(1)", "sympy.Function(1)", "sympy.Eq(x)", "sympy.Piecewise((x, 1 < 0))\nsympy.Piecewise()",
    "sympy.lambdify(x, x, modules='nosuch')", "sympy.lambdify(x, x)(1, 2)", "sympy.latex(x, mode='bogus')",
    "sympy.nsolve(x**2 + 1, x, 1)", "sympy.series(x, x, 0, -1)", "sympy.Sum(x, (x, 1))",
    "sympy.Product(x, x)", "sympy.Derivative(x, 1)", "sympy.Array([[1, 2], [3]])",
    "sympy.tensor.array.MutableDenseNDimArray([1, 2])[5]", "sympy.primefactors(1.5)",
    "sympy.prime(0)", "sympy.nextprime(1.5)", "sympy.mod_inverse(2, 4)", "sympy.totient(-1)",
    "sympy.ntheory.factorint(1.5)", "sympy.combinatorics.Permutation([0, 0])",
    "sympy.combinatorics.Permutation([1, 2])", "sympy.Matrix([[1, 2], [3, 4]]).eigenvects(chop=1, bogus=2)",
    "from sympy.parsing.sympy_parser import parse_expr\nparse_expr('1 +* 2')",
    "from sympy.parsing.sympy_parser import parse_expr\nparse_expr('x', transformations='bogus')",
    "sympy.logic.boolalg.to_cnf(1 + x)", "sympy.And(x + 1, y)", "sympy.Not(x + 1)",
    "sympy.Max()", "sympy.Min(x, sympy.I)", "sympy.floor(x).is_integer\nsympy.Range(1, 5, 0)",
    "sympy.Range(0, sympy.oo)[-1]\nsympy.Range(x)", "sympy.ImageSet(1, sympy.S.Reals)",
    "sympy.Mod(x, 0)", "sympy.exp(x).subs(1)", "x.subs({x: 1}, {y: 2}, z=3)", "sympy.Poly(x, x).div(0)",
    "sympy.Matrix([1, 2]).dot(sympy.Matrix([1, 2, 3]))", "sympy.Matrix([[1, 2]]).cross(sympy.Matrix([1]))",
    "sympy.sympify('x', strict=True)\nsympy.sympify(object(), strict=True)",
    "sympy.Symbol('x', positive=True, negative=True)", "sympy.ask(1)", "sympy.refine(x, 1)"]])
MP = "import mpmath\nfrom mpmath import mp, mpf, matrix\n"
add("pypi/mpmath", *[MP + s for s in [
    "mpf('abc')", "mpf(1) / 0", "mpmath.log(0)", "mpmath.sqrt(-1, check=True)\nmpmath.mpf(-1).__pow__(0.5)\nmpmath.acos(5, strict=1)",
    "matrix([[1, 2], [2, 4]]) ** -1", "mpmath.lu_solve(matrix([[1, 2], [2, 4]]), [1, 2])",
    "matrix([[1, 2]]) * matrix([[1, 2]])", "matrix(2, 2)[5, 5]", "matrix([[1, 2], [3]])",
    "mpmath.findroot(lambda x: x**2 + 1, 1)", "mpmath.findroot(lambda x: x, 1, solver='nosuch')",
    "mpmath.quad(lambda x: x, [0])", "mpmath.zeta(1)", "mpmath.gamma(0)", "mpmath.gamma(-1)",
    "mpmath.binomial(-1, 0.5)\nmpmath.factorial(-1)", "mpmath.nthroot(2, 0)", "mpmath.polyroots([0, 0])",
    "mpmath.polyroots([1, 2, 3], maxsteps=1)", "mpmath.mpc('x')", "mpmath.mpi('[a, b]')",
    "mpmath.cholesky(matrix([[1, 2], [2, 1]]))", "mpmath.det(matrix([[1, 2]]))", "mpmath.inverse(matrix([[0]]))",
    "mpmath.mpf(1) < mpmath.mpc(1, 1)", "mpmath.nprint(1, 'x')\nmpmath.nstr(1, 'x')", "mpmath.diff(lambda x: x, 1, -1)",
    "mpmath.taylor(lambda x: x, 0, -1)", "mpmath.odefun(lambda x, y: y, 0, 1)(-1)", "mpmath.lambertw(0, k=1.5)",
    "mpmath.besselj(1, 1, derivative=-1)", "mpmath.bernoulli(-1)", "mpmath.hyp2f1(1, 1, 0, 0.5)",
    "mpmath.agm(1, -1, 1)", "mpmath.mp.dps = -1", "mpmath.eig(matrix([[1, 2]]))", "mpmath.qr(matrix(0, 0))",
    "mpmath.chop(1, 'x')", "mpmath.limit(lambda x: 1 / x, 0, exp=True, method='x')",
    "mpmath.nsum(lambda k: k, [1, mpmath.inf], method='bogus')", "mpmath.pslq([1, 2], maxcoeff=-1)\nmpmath.pslq([1])",
    "mpmath.identify(1, ['x y'])", "mpmath.fraction(1, 0)(1)", "mpmath.mpf(1).__int__()\nint(mpmath.inf)",
    "int(mpmath.nan)", "mpmath.floor(mpmath.nan)\nmpmath.nint(mpmath.mpc(1, 1))", "mpmath.randmatrix(-1)"]])
PD = ("import pydantic\nfrom typing import List, Optional, Literal\n"
      "class User(pydantic.BaseModel):\n    id: int\n    name: str\n    email: pydantic.EmailStr = None\n"
      "    tags: List[str] = []\n    kind: Literal['a', 'b'] = 'a'\n    url: Optional[pydantic.HttpUrl] = None\n"
      "    model_config = pydantic.ConfigDict(extra='forbid')\n")
PD = PD.replace("    email: pydantic.EmailStr = None\n", "")
each("pypi/pydantic", PD + "User(**ARG)",
     [{}, {"id": "x", "name": "a"}, {"id": 1}, {"id": 1, "name": 2}, {"id": 1, "name": "a", "tags": "x"},
      {"id": 1, "name": "a", "kind": "c"}, {"id": 1, "name": "a", "url": "nota url"},
      {"id": 1, "name": "a", "extra": 1}, {"id": 1.5, "name": "a"}, {"id": None, "name": "a"}])
add("pypi/pydantic", *[PD + s for s in [
    "User.model_validate([1])", "User.model_validate_json('{bad')", "User.model_validate_json('{\"id\": 1}')",
    "User(id=1, name='a').model_copy(update={'id': 'x'}).model_dump()\nUser.model_validate({'id': 'x'}, strict=True)",
    "u = User(id=1, name='a')\nu.id = 'x'\nUser.model_config['validate_assignment'] = True\nUser.model_rebuild(force=True)\nUser(id=1, name='a').id = 'x'",
    "pydantic.TypeAdapter(int).validate_python('x')", "pydantic.TypeAdapter(List[int]).validate_json('[1, \"a\"]')",
    "pydantic.TypeAdapter(pydantic.PositiveInt).validate_python(-1)",
    "pydantic.TypeAdapter(pydantic.conint(gt=5)).validate_python(1)",
    "pydantic.TypeAdapter(pydantic.constr(min_length=3)).validate_python('a')",
    "pydantic.TypeAdapter(pydantic.AnyUrl).validate_python('::')",
    "pydantic.TypeAdapter(pydantic.IPvAnyAddress).validate_python('x')",
    "import datetime\npydantic.TypeAdapter(datetime.date).validate_python('2020-13-01')",
    "import uuid\npydantic.TypeAdapter(uuid.UUID).validate_python('x')",
    "class M(pydantic.BaseModel):\n    x: int\n    @pydantic.field_validator('x')\n    def check(cls, v):\n"
    "        raise ValueError('x must be even')\nM(x=1)",
    "class M(pydantic.BaseModel):\n    x: int\n    @pydantic.field_validator('y')\n    def check(cls, v):\n        return v",
    "class M(pydantic.BaseModel):\n    x: 'Undefined'\nM(x=1)",
    "class M(pydantic.BaseModel):\n    x: object = pydantic.Field(gt='a')\nM(x=1)",
    "class M(pydantic.BaseModel):\n    _x: int = 1\n    model_config = pydantic.ConfigDict(frozen=True)\nm = M()\nM.x = 1\nM.model_fields['q']",
    "class M(pydantic.BaseModel):\n    model_config = pydantic.ConfigDict(frozen=True)\n    x: int = 1\nM().x = 2",
    "class M(pydantic.BaseModel):\n    x: int\nM.model_validate({'x': 1}).y",
    "class M(pydantic.BaseModel):\n    x: int\nM(1)", "class M(pydantic.BaseModel):\n    model_fields: int = 1",
    "class M(pydantic.BaseModel):\n    x: int = pydantic.Field(default=1, default_factory=int)",
    "class M(pydantic.BaseModel):\n    x: int\n    @pydantic.model_validator(mode='after')\n"
    "    def v(self):\n        assert self.x > 0, 'x must be positive'\n        return self\nM(x=-1)",
    "pydantic.create_model('M', x=(int, ...))(x='a')", "pydantic.validate_call(lambda x: x)(1, 2)",
    "@pydantic.validate_call\ndef f(x: int):\n    return x\nf('q')",
    "pydantic.TypeAdapter(Literal[1, 2]).validate_python(3)", "pydantic.TypeAdapter(dict).validate_python([1])",
    "pydantic.TypeAdapter(pydantic.Json).validate_python('{')", "pydantic.TypeAdapter(bytes).validate_python(1)",
    "pydantic.TypeAdapter(pydantic.SecretStr).validate_python(1)", "pydantic.TypeAdapter(float).validate_python('nan', strict=True)",
    "class M(pydantic.BaseModel):\n    x: int\nM.model_json_schema(mode='bogus')", "pydantic.parse_obj_as(int, 'x')"]])
JS = "import jsonschema\n"
each("pypi/jsonschema", JS + "jsonschema.validate(*ARG)",
     [(1, {"type": "string"}), ({}, {"required": ["a"]}), ([1, 1], {"uniqueItems": True}),
      ("abc", {"maxLength": 2}), (5, {"maximum": 3}), ({"a": 1}, {"additionalProperties": False}),
      ("x", {"enum": [1, 2]}), ("x", {"pattern": "^a"}), ([], {"minItems": 1}), (1, {"const": 2}),
      ({"a": "x"}, {"properties": {"a": {"type": "integer"}}}), (1, {"not": {"type": "integer"}}),
      (1, {"anyOf": [{"type": "string"}, {"type": "null"}]}), (1, {"oneOf": [{"type": "integer"}, {"minimum": 0}]}),
      (1, {"type": "bogus"}), (1, {"$ref": "#/definitions/missing"}), (1, {"minimum": "a"}),
      ("x", {"pattern": "("}), (1, {"multipleOf": 2}), ([1], {"contains": {"type": "string"}}),
      ({"a": 1}, {"dependentRequired": {"a": ["b"]}}), ({"b": 1}, {"propertyNames": {"maxLength": 0}}),
      (1, {"$ref": "http://example.invalid/s.json"}), (1, {"allOf": [{"type": "string"}]}),
      (1, {"if": {"type": "integer"}, "then": {"minimum": 5}}), ([1, "a"], {"items": {"type": "integer"}}),
      (1, {"$schema": "http://nosuch/schema", "type": "string"})])
add("pypi/jsonschema", *[JS + s for s in [
    "jsonschema.Draft7Validator.check_schema({'type': 1})", "jsonschema.Draft202012Validator.check_schema({'minimum': 'a'})",
    "jsonschema.Draft7Validator({'format': 'ipv4'}, format_checker=jsonschema.FormatChecker()).validate('x')",
    "jsonschema.validators.validator_for({'$schema': 'nosuch'}, default=None)\njsonschema.validators.validator_for({'$schema': 'nosuch'})",
    "jsonschema.Draft7Validator({}).iter_errors(1, _schema=1)", "next(jsonschema.Draft7Validator({'type': 'string'}).iter_errors(1)).absolute_path[0]",
    "jsonschema.FormatChecker().check('x', 'ipv4')", "jsonschema.exceptions.best_match([]).message",
    "jsonschema.Draft7Validator({'$ref': '#/nope'}).validate(1)", "jsonschema.TypeChecker().is_type(1, 'nosuch')",
    "jsonschema.validators.extend(jsonschema.Draft7Validator, validators=1)",
    "jsonschema.Draft4Validator({'exclusiveMinimum': True, 'minimum': 5}).validate(5)"]])
DU = "from dateutil import parser, relativedelta, rrule, tz\nimport datetime\n"
each("pypi/dateutil", DU + "parser.parse(ARG)",
     ["not a date", "", "2020-13-45", "32/01/2020", "25:61", "2020-02-30", "Mon Feb 30 2020", "99999999999",
      "2020-01-01T10:00:00+99:00", "tomorrow at noon", "1st of Smarch", "10:00 XYZ PM", "2020 W60"])
add("pypi/dateutil", *[DU + s for s in [
    "parser.isoparse('2020-1-1')", "parser.isoparse('2020-01-01T25:00')", "parser.isoparse('x')",
    "parser.isoparse('2020-01-01T10:00+2')", "parser.isoparser(sep='ab')", "parser.parse(1)",
    "parser.parse('2020', default=1)", "parser.parse('10 UTC', tzinfos={'UTC': 'x'})",
    "relativedelta.relativedelta(months=1.5)", "relativedelta.relativedelta(datetime.date.today(), 1)",
    "relativedelta.relativedelta(weekday=9)\nrelativedelta.relativedelta(day=40) + datetime.date(2020, 1, 1)\n"
    "relativedelta.relativedelta(yearday=400) + datetime.date(2020, 1, 1)",
    "rrule.rrule(99)", "rrule.rrule(rrule.DAILY, count=1, until=datetime.datetime.now())",
    "rrule.rrulestr('FREQ=SOMETIMES')", "rrule.rrulestr('FREQ=DAILY;BYDAY=XX')", "rrule.rrulestr('BOGUS')",
    "rrule.rrulestr('FREQ=DAILY;UNTIL=xyz')", "rrule.rrulestr('DTSTART:x\\nRRULE:FREQ=DAILY')",
    "rrule.rrule(rrule.DAILY, bysetpos=0)", "rrule.rrule(rrule.DAILY, byweekday='x')",
    "rrule.rrule(rrule.DAILY, dtstart=datetime.datetime.now(tz.UTC), until=datetime.datetime.now())",
    "tz.gettz('No/Where').utcoffset(datetime.datetime.now())", "tz.tzstr('garbage!!')",
    "tz.tzfile('missing')", "tz.tzoffset('x', 'y')", "tz.tzical('missing.ics')",
    "import io\ntz.tzical(io.StringIO('BEGIN:VTIMEZONE\\nEND:VTIMEZONE'))",
    "from dateutil import easter\neaster.easter(2020, method=9)"]])
BC = ("import botocore.session\nfrom botocore.stub import Stubber\n"
      "s = botocore.session.get_session()\n"
      "c = s.create_client('s3', region_name='us-east-1', aws_access_key_id='a', aws_secret_access_key='b')\n"
      "d = s.create_client('dynamodb', region_name='us-east-1', aws_access_key_id='a', aws_secret_access_key='b')\n"
      "st = Stubber(c)\nst.activate()\n")
add("pypi/botocore", *[BC + x for x in [
    "c.get_object(Bucket='b')", "c.get_object(Bucket=1, Key='k')", "c.get_object(Bucket='b', Key='k', Bogus=1)",
    "c.put_object(Bucket='b', Key='k', Body=1)", "c.list_objects_v2(Bucket='b', MaxKeys='x')",
    "c.get_object(Bucket='b', Key='k')", "st.add_response('get_object', {'Bogus': 1})",
    "st.add_response('get_object', {}, {'Bucket': 'b', 'Key': 'k'})\nc.get_object(Bucket='x', Key='k')",
    "st.add_client_error('get_object', 'NoSuchKey', 'gone')\nc.get_object(Bucket='b', Key='k')",
    "st.add_client_error('head_bucket', 'NotFound', http_status_code=404)\nc.head_bucket(Bucket='b')",
    "st.add_response('nosuch_op', {})", "st.assert_no_pending_responses()\nst.add_response('list_buckets', {})\n"
    "st.assert_no_pending_responses()", "c.nosuch_operation()", "c.get_paginator('nosuch')",
    "c.get_waiter('nosuch')", "c.generate_presigned_url('nosuch')", "c.get_object('b', 'k')",
    "c.create_bucket(Bucket='b', CreateBucketConfiguration={'LocationConstraint': 1})",
    "c.put_bucket_tagging(Bucket='b', Tagging={'TagSet': [{'Key': 'a'}]})",
    "c.delete_objects(Bucket='b', Delete={'Objects': 'x'})", "s.create_client('nosuchservice', region_name='us-east-1')",
    "s.create_client('s3', region_name='not a region!')", "s.get_service_model('nosuch')",
    "s.get_config_variable('region')\ns.set_config_variable('profile', 'missing')\ns.get_scoped_config()",
    "import botocore.config\nbotocore.config.Config(retries={'mode': 'bogus'})\n"
    "s.create_client('s3', region_name='us-east-1', config=botocore.config.Config(retries={'mode': 'bogus'}))",
    "import botocore.config\nbotocore.config.Config(bogus=1)", "import botocore.config\nbotocore.config.Config(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29)",
    "d.put_item(TableName='t', Item={'a': 1})", "d.put_item(TableName='t', Item={'a': {'S': 1}})",
    "d.query(TableName='t', Limit=0)", "d.get_item(TableName='', Key={})", "d.scan(TableName='t', Select='BOGUS')\n",
    "c.get_object(Bucket='b', Key='k', Range=['x'])", "c.put_object(Bucket='b', Key='k', ContentLength='x')",
    "c.put_object(Bucket='b', Key='k', Expires='notadate')", "c.list_buckets(1)",
    "c.meta.events.register('before-call.s3.GetObject', lambda **kw: 1 / 0)\nc.get_object(Bucket='b', Key='k')",
    "import botocore.exceptions\nraise botocore.exceptions.NoCredentialsError()",
    "botocore.session.Session(profile='missing').get_credentials()",
    "import botocore.utils\nbotocore.utils.parse_timestamp('x')", "import botocore.utils\nbotocore.utils.validate_region_name('a b')",
    "import botocore.utils\nbotocore.utils.percent_encode_sequence(1)", "import botocore.utils\nbotocore.utils.parse_to_aware_datetime('x')"]])
WZ = ("from werkzeug.routing import Map, Rule\nfrom werkzeug import exceptions, datastructures, http\n"
      "m = Map([Rule('/a/<int:id>', endpoint='a'), Rule('/b', endpoint='b', methods=['POST'])])\n"
      "u = m.bind('example.com')\n")
add("pypi/werkzeug", *[WZ + s for s in [
    "u.match('/nope')", "u.match('/a/x')", "u.match('/b', method='GET')", "u.match('/a/1/')\nu.match('/b/')",
    "u.build('nosuch')", "u.build('a')", "u.build('a', {'id': 'x'})", "Map([Rule('x', endpoint='a')])",
    "Map([Rule('/<bogus:x>', endpoint='a')])", "Map([Rule('/<int:x', endpoint='a')])\nMap([Rule('/<int:x>/<x>', endpoint='a')])",
    "Map([Rule('/<x>/<x>', endpoint='a')])", "Map([Rule('/a', endpoint='a', methods='GET')])\nm.bind('h').match('/a/1', method='DELETE')",
    "exceptions.abort(404)", "exceptions.abort(999)", "exceptions.abort(418)", "raise exceptions.BadRequest('bad input')",
    "exceptions.Aborter()(500, 'boom')", "datastructures.MultiDict()['x']", "datastructures.Headers()['X']",
    "datastructures.Headers().add('X', 'a\\nb')", "datastructures.ImmutableDict({'a': 1})['b'] = 1",
    "datastructures.ImmutableMultiDict()['a'] = 1", "datastructures.ImmutableList([1]).append(2)",
    "datastructures.FileStorage().save(1)\n", "datastructures.Range('bytes', [(5, 1)])",
    "datastructures.ContentRange('bytes', 5, 1, 10)\ndatastructures.ContentRange('bytes', 1, 20, 10)",
    "http.parse_date('x').year", "http.parse_options_header(1)", "http.quote_etag('a\"b')\nhttp.unquote_etag(1)",
    "http.dump_cookie('a', 'b', samesite='bogus')", "http.parse_accept_header('a;q=x', datastructures.MIMEAccept)['a']\n"
    "datastructures.MIMEAccept([('text', 1)]).best_match(1)", "http.http_date('x')",
    "from werkzeug.security import check_password_hash, generate_password_hash\ngenerate_password_hash('x', method='bogus')",
    "from werkzeug.security import check_password_hash\ncheck_password_hash('bogus$salt$hash', 'x')\n"
    "check_password_hash('pbkdf2:bogus$s$h', 'x')", "from werkzeug.security import generate_password_hash\ngenerate_password_hash('x', method='pbkdf2:sha256:x')",
    "from werkzeug.utils import secure_filename, import_string\nimport_string('no.such.mod')",
    "from werkzeug.utils import import_string\nimport_string('os:nosuch')", "from werkzeug.utils import redirect\nredirect('/x', code=200, Response=1)",
    "from werkzeug.test import Client, EnvironBuilder\nEnvironBuilder(method='GET', data={'a': 1}, json={'b': 2})",
    "from werkzeug.test import EnvironBuilder\nEnvironBuilder(path='/x', base_url='http://h', query_string={'a': 1}).get_environ()\n"
    "EnvironBuilder('/x?a=1', query_string='b=2')",
    "from werkzeug.wrappers import Request, Response\nResponse(status='x')",
    "from werkzeug.wrappers import Response\nResponse(status=99999)", "from werkzeug.wrappers import Response\nResponse(1)\nResponse(object()).get_data()",
    "from werkzeug.wrappers import Request\nfrom werkzeug.test import EnvironBuilder\n"
    "Request(EnvironBuilder(data='{', content_type='application/json').get_environ()).get_json()",
    "from werkzeug.wrappers import Request\nfrom werkzeug.test import EnvironBuilder\n"
    "Request(EnvironBuilder(data='x').get_environ()).form['a']",
    "from werkzeug.wrappers import Request\nfrom werkzeug.test import EnvironBuilder\n"
    "Request(EnvironBuilder(data='x', content_type='text/plain').get_environ()).get_json()",
    "from werkzeug.urls import iri_to_uri\niri_to_uri(1)", "from werkzeug.local import LocalProxy\nLocalProxy(lambda: None).x\n"
    "import contextvars\nLocalProxy(contextvars.ContextVar('v')).x"]])
PP = "import pyparsing as pp\n"
add("pypi/pyparsing", *[PP + s for s in [
    "pp.Word(pp.nums).parse_string('abc')", "pp.Word(pp.alphas).parse_string('123')",
    "pp.Literal('x').parse_string('y')", "(pp.Word(pp.nums) + pp.StringEnd()).parse_string('1 2')",
    "pp.Word(pp.nums).parse_string('1 x', parse_all=True)", "pp.Keyword('if').parse_string('iffy')",
    "pp.Regex('(')", "pp.Regex('a').parse_string('b')", "pp.QuotedString('\"').parse_string('\"abc')",
    "pp.one_of('a b').parse_string('c')", "pp.Suppress('(') + pp.Word(pp.nums)\n(pp.Suppress('(') + pp.Word(pp.nums) + pp.Suppress(')')).parse_string('(1')",
    "pp.nested_expr().parse_string('((a)')", "pp.Word('')", "pp.Word(pp.nums, min=3).parse_string('12')",
    "pp.Word(pp.nums, exact=2).parse_string('123', parse_all=True)", "pp.CaselessLiteral('abc').parse_string('xyz')",
    "pp.Combine(pp.Word(pp.nums) + '.' + pp.Word(pp.nums)).parse_string('1.')", "pp.Char('ab').parse_string('c')",
    "pp.SkipTo('end', fail_on='stop').parse_string('a stop end')", "(pp.Word(pp.alphas) - pp.Word(pp.nums)).parse_string('a b')",
    "pp.Word(pp.nums).set_name('number').parse_string('x')", "pp.common.integer.parse_string('x')",
    "pp.common.ipv4_address.parse_string('1.2.3')", "pp.common.iso8601_date.parse_string('2020-13')",
    "pp.common.convert_to_date()('s', 0, pp.ParseResults(['2020-13-45']))",
    "pp.infix_notation(pp.Word(pp.nums), [('+', 3, pp.OpAssoc.LEFT)])",
    "pp.infix_notation(pp.Word(pp.nums), [('+', 2, 'x')])",
    "pp.Forward().parse_string('a')", "r = pp.Word(pp.nums)('n').parse_string('1')\nr['m']",
    "pp.ParseResults(['a'])[5]", "pp.Word(pp.nums).add_condition(lambda t: int(t[0]) > 5, message='too small').parse_string('3')",
    "pp.Word(pp.nums).set_parse_action(lambda t: int('x')).parse_string('3')",
    "pp.match_previous_literal(pp.Word(pp.nums))\nw = pp.Word(pp.nums)\n(w + pp.match_previous_expr(w)).parse_string('1 2')",
    "pp.counted_array(pp.Word(pp.alphas)).parse_string('3 a b')", "pp.Located(pp.Word(pp.nums)).parse_string('x')",
    "pp.Literal('')\npp.Literal('a') + 1", "pp.Word(pp.nums) * -1", "pp.Word(pp.nums) * (3, 1)",
    "pp.Opt(pp.Word(pp.nums)) * 'x'", "pp.Empty().parse_string('x', parse_all=True)",
    "pp.html_comment.parse_string('<!-- x')", "pp.c_style_comment.parse_string('/* x')",
    "pp.make_html_tags('a')[0].parse_string('<b>')", "pp.LineStart().parse_string(' x')\n(pp.Word(pp.alphas) + pp.LineStart() + 'x').parse_string('a x')",
    "pp.Word(pp.alphas).parse_file('missing.txt')", "pp.delimited_list(pp.Word(pp.nums)).parse_string('1,,2', parse_all=True)"]])
DC = ("from docutils.core import publish_string, publish_doctree\n"
      "O = {'halt_level': 2, 'report_level': 5, 'output_encoding': 'unicode', '_disable_config': True}\n")
each("pypi/docutils", DC + "publish_doctree(ARG, settings_overrides=O)",
     ["Title\n===\n\n`unterminated", ".. bogus-directive::", "Title\n==\n", ".. image::", "* a\n b",
      ":unknown-role:`x`", "`link`_", "[#]_", ".. |x| unknown:: y", "a\n\n   b\n\n  c",
      ".. code-block:: nosuchlang\n\n   x", ".. include:: missing.rst", ".. raw::", ".. csv-table::\n\n   a,\"b",
      ".. list-table::\n\n   * - a\n   * - b\n     - c", "+--+\n|a |\n+-+", "=== ===\na\n=== ===\n",
      ".. figure::", "__ anon", ".. _x:\n.. _x:\n\nText", "*emph", "**strong", "``lit", "|sub|",
      ".. math::\n\n   \\frac{", ".. contents:: x\n   :depth: q", ".. admonition::", ".. table::\n\n   x"])
add("pypi/docutils", *[DC + s for s in [
    "publish_string('x', writer_name='nosuch', settings_overrides=O)", "publish_string('x', reader_name='nosuch', settings_overrides=O)",
    "publish_string('x', parser_name='nosuch', settings_overrides=O)",
    "publish_string('x', writer_name='html', settings_overrides=dict(O, stylesheet_path='missing.css', embed_stylesheet=True))",
    "publish_string('x', settings_overrides=dict(O, bogus_setting=1), writer_name='latex')\n"
    "publish_string('x', writer_name='latex', settings_overrides=dict(O, documentclass=1, use_latex_citations='q', template='missing.tex'))",
    "from docutils import nodes\nnodes.Element()[5]", "from docutils import nodes\nnodes.Element()['missing']",
    "from docutils import nodes\nnodes.Text(1)\nnodes.Element().append(1)\nnodes.Element().pformat(indent=1)\nnodes.Text('x')[0] = 'y'",
    "from docutils.utils import new_document\nnew_document('x').reporter.severe('fatal problem')\n"
    "from docutils.frontend import get_default_settings\nfrom docutils.parsers.rst import Parser\n"
    "s = get_default_settings(Parser)\ns.halt_level = 1\nnew_document('x', s).reporter.warning('w')",
    "from docutils.frontend import validate_boolean\nvalidate_boolean('x', 'maybe')",
    "from docutils.frontend import validate_encoding\nvalidate_encoding('x', 'nosuch-codec')",
    "from docutils.frontend import validate_threshold\nvalidate_threshold('x', 'q')",
    "from docutils.parsers.rst import directives\ndirectives.positive_int('-1')",
    "from docutils.parsers.rst import directives\ndirectives.choice('x', ['a'])",
    "from docutils.parsers.rst import directives\ndirectives.length_or_percentage_or_unitless('10 parsecs')",
    "from docutils.parsers.rst import directives\ndirectives.flag('x')", "from docutils.parsers.rst import directives\ndirectives.unchanged_required(None)",
    "from docutils.parsers.rst import directives\ndirectives.uri(None)", "from docutils.parsers.rst import directives\ndirectives.encoding('nosuch')",
    "from docutils.parsers.rst import directives\ndirectives.class_option('')", "from docutils.parsers.rst import directives\ndirectives.nonnegative_int('x')",
    "from docutils.parsers.rst import directives\ndirectives.percentage('x%')", "from docutils.parsers.rst import directives\ndirectives.value_or(('a',), int)('q')",
    "from docutils.utils import column_width, relative_path, unescape, get_stylesheet_list\nrelative_path(None, 1)",
    "from docutils.utils import decode_path\ndecode_path(1)", "from docutils.utils import normalize_language_tag, find_file_in_dirs\nimport docutils.languages\ndocutils.languages.get_language(1)"]])
AT = "import attr, attrs\n"
add("pypi/attr", *[AT + s for s in [
    "@attr.s\nclass C:\n    x = attr.ib(validator=attr.validators.instance_of(int))\nC('a')",
    "@attrs.define\nclass C:\n    x: int = attrs.field(validator=attrs.validators.gt(5))\nC(1)",
    "@attrs.define\nclass C:\n    x: str = attrs.field(validator=attrs.validators.in_(['a', 'b']))\nC('c')",
    "@attrs.define\nclass C:\n    x: str = attrs.field(validator=attrs.validators.matches_re('a+'))\nC('b')",
    "@attrs.define\nclass C:\n    x: str = attrs.field(validator=attrs.validators.max_len(2))\nC('abc')",
    "@attrs.define\nclass C:\n    x: str = attrs.field(validator=attrs.validators.min_len(2))\nC('')",
    "@attrs.define\nclass C:\n    x: list = attrs.field(validator=attrs.validators.deep_iterable(attrs.validators.instance_of(int)))\nC(['a'])",
    "@attrs.define\nclass C:\n    x: dict = attrs.field(validator=attrs.validators.deep_mapping(attrs.validators.instance_of(str), attrs.validators.instance_of(int)))\nC({1: 1})",
    "@attrs.define\nclass C:\n    x: int = attrs.field(validator=attrs.validators.and_(attrs.validators.ge(0), attrs.validators.lt(3)))\nC(5)",
    "@attrs.define\nclass C:\n    x: int = attrs.field(validator=attrs.validators.optional(attrs.validators.instance_of(int)))\nC('a')",
    "@attrs.define\nclass C:\n    x: object = attrs.field(validator=attrs.validators.is_callable())\nC(1)",
    "@attrs.define\nclass C:\n    x: object = attrs.field(validator=attrs.validators.provides(1))\nC(1)",
    "@attrs.define\nclass C:\n    x: int = attrs.field(validator=attrs.validators.not_(attrs.validators.instance_of(int)))\nC(1)",
    "@attrs.define\nclass C:\n    x: int = attrs.field(validator=attrs.validators.or_(attrs.validators.instance_of(str)))\nC(1)\n"
    if hasattr(__import__('attrs').validators, 'or_') else "import attr\nattr.validators.instance_of(int)(None, attr.ib(), 'a')",
    "@attrs.frozen\nclass C:\n    x: int\nC(1).x = 2", "@attrs.define\nclass C:\n    x: int\nC()", "@attrs.define\nclass C:\n    x: int\nC(1, 2)",
    "@attrs.define\nclass C:\n    x: int = 1\n    y: int\n", "@attrs.define\nclass C:\n    x: int\nattrs.evolve(C(1), y=2)",
    "attrs.fields(int)", "attrs.fields(1)", "attrs.asdict(1)", "@attrs.define\nclass C:\n    x: int\nattrs.fields_dict(C)['y']",
    "attr.ib(default=1, factory=list)", "@attrs.define\nclass C:\n    x: int = attrs.field(converter=int)\nC('q')",
    "attr.converters.to_bool('maybe')", "attr.converters.optional(int)('x')", "attr.converters.pipe(int, str)('x')",
    "attr.make_class('C', ['x', 'x'])\nattr.make_class('C', 1)", "@attrs.define(slots=True)\nclass C:\n    x: int\nC(1).y = 2",
    "@attrs.define\nclass C:\n    x: int = attrs.field(on_setattr=attrs.setters.frozen)\nC(1).x = 3",
    "attrs.validators.set_disabled('x')\n@attrs.define\nclass C:\n    x: int = attrs.field(validator=attrs.validators.instance_of(int))\nc = C(1)\nc.x = 'a'\nattrs.validate(c)"]])
each("pypi/idna", "import idna\nidna.encode(ARG)",
     ["", "a..b", "-abc", "abc-", "a" * 64, "x_y", "\u0660\u06f0", "xn--", "a\u200db", "\u00df" * 70 + ".com",
      "ab--cd", "a b", "\u0301a", "xn--zz", "a.b." * 70])
each("pypi/idna", "import idna\nidna.decode(ARG)", ["xn--", "xn--zz", "xn--a-ecp.ru", "a..b", b"\xff", "A" * 64])
add("pypi/idna", "import idna\nidna.encode('\u2163', uts46=True, std3_rules=True)",
    "import idna\nidna.encode('a\u00adb\u0000', uts46=True)", "import idna\nidna.alabel('')",
    "import idna\nidna.ulabel('xn--a')", "import idna\nidna.check_bidi('\u05d0a')", "import idna\nidna.check_hyphen_ok('ab--c')",
    "import idna\nidna.check_nfc('e\u0301')", "import idna\nidna.check_initial_combiner('\u0301')",
    "import idna\nidna.valid_contextj('a\u200c', 1)\nidna.check_label('a\u200cb')", "import idna\nidna.check_label('a\u00b7')",
    "import idna\nidna.uts46_remap('\u0000', std3_rules=True)", "import idna\nidna.encode(1)")
each("pypi/jmespath", "import jmespath\njmespath.search(ARG, {'a': [1, 2], 'b': 'x'})",
     ["a[", "a.[", "foo(", "[?a ==]", "a | | b", "`{bad json`", "length(a, b)", "nosuchfn(a)", "abs(b)",
      "sort_by(a, &x)", "max(b)", "a[::0]", "join(',', a)", "to_number(`[]`)\nsum(b)", "contains(`1`, 'x')",
      "avg(b)", "starts_with(a, 'x')", "reverse(`1`)", "keys(a)", "values(b)", "merge(a)", "a..b", "'unterminated",
      "\"x", "a[?@ > `1`", "min_by(a, &b)", "@@", "*.[0]]", "not_null()", "map(&x)", "ceil('x')"])
add("pypi/jmespath", "import jmespath\njmespath.compile(1)", "import jmespath\njmespath.compile('a').search({}, options=1)",
    "import jmespath\nfrom jmespath import functions\nclass F(functions.Functions):\n    @functions.signature({'types': ['bogus']})\n"
    "    def _func_f(self, x):\n        return x\njmespath.search('f(a)', {'a': 1}, options=jmespath.Options(custom_functions=F()))")
each("pypi/jsonpointer", "import jsonpointer\njsonpointer.resolve_pointer({'a': [1, 2], 'b': {'c': 1}}, ARG)",
     ["/x", "a", "/a/5", "/a/x", "/a/-", "/b/c/d", "/a/01", "/~2", "/b/~", "/a/-1"])
add("pypi/jsonpointer", "import jsonpointer\njsonpointer.JsonPointer('/a').resolve(1)",
    "import jsonpointer\njsonpointer.set_pointer({}, '/a/b', 1)", "import jsonpointer\njsonpointer.set_pointer([], '/5', 1)",
    "import jsonpointer\njsonpointer.JsonPointer.from_parts([1]).resolve({})", "import jsonpointer\njsonpointer.JsonPointer('x')",
    "import jsonpointer\njsonpointer.JsonPointer('/a').join(1)")
each("pypi/jsonpatch", "import jsonpatch\njsonpatch.apply_patch({'a': 1, 'l': [1]}, ARG)",
     [[{"op": "remove", "path": "/x"}], [{"op": "replace", "path": "/x", "value": 1}], [{"op": "bogus", "path": "/a"}],
      [{"path": "/a"}], [{"op": "add", "path": "/a"}], [{"op": "test", "path": "/a", "value": 2}],
      [{"op": "move", "from": "/x", "path": "/y"}], [{"op": "copy", "from": "/x", "path": "/y"}],
      [{"op": "add", "path": "/l/9", "value": 1}], [{"op": "remove", "path": "/l/9"}], [{"op": "add", "path": "x", "value": 1}],
      [{"op": "move", "from": "/a", "path": "/a/b"}], [{"op": "replace", "path": "/l/x", "value": 1}],
      [{"op": "remove"}], [{"op": "move", "path": "/a"}], [{"op": "test", "path": "/x", "value": 1}], "[{bad json",
      '[{"op": "remove", "path": "/a"}, {"op": "remove", "path": "/a"}]', [{"op": "add", "path": "/a/b/c", "value": 1}],
      [{"op": "add", "path": "/l/-1", "value": 1}], [{"op": 1, "path": "/a"}], [["op", "add"]]])
add("pypi/jsonpatch", "import jsonpatch\njsonpatch.JsonPatch.from_string('nope')", "import jsonpatch\njsonpatch.JsonPatch(1)",
    "import jsonpatch\njsonpatch.make_patch(1, 2).apply(1)\njsonpatch.JsonPatch([{'op': 'add', 'path': '/a', 'value': 1}]).apply(1)")
RS = "import rsa\npub, priv = rsa.newkeys(512)\n"
add("pypi/rsa", *[RS + s for s in [
    "rsa.verify(b'msg', b'sig', pub)", "rsa.decrypt(b'x' * 64, priv)", "rsa.encrypt(b'x' * 100, pub)",
    "rsa.sign(b'msg', priv, 'MD99')", "rsa.PublicKey.load_pkcs1(b'garbage')", "rsa.PrivateKey.load_pkcs1(b'garbage')",
    "rsa.PublicKey.load_pkcs1(b'x', format='XML')", "rsa.PrivateKey.load_pkcs1(b'-----BEGIN RSA PRIVATE KEY-----\\n-----END RSA PRIVATE KEY-----\\n')",
    "rsa.pem.load_pem(b'no markers', 'RSA PRIVATE KEY')", "rsa.PublicKey.load_pkcs1_openssl_pem(b'x')",
    "rsa.verify(b'msg', rsa.sign(b'msg', priv, 'SHA-256'), rsa.newkeys(512)[0])", "rsa.encrypt('str', pub)",
    "rsa.find_signature_hash(b'x' * 64, pub)", "rsa.compute_hash(b'x', 'nosuch')", "rsa.sign_hash(b'x', priv, 'SHA-256')",
    "rsa.newkeys(8)", "rsa.newkeys(512, poolsize=0)", "rsa.transform.bytes2int('x')\nrsa.core.encrypt_int(-1, 3, 5)",
    "rsa.core.encrypt_int(10, 3, 5)", "rsa.transform.int2bytes(-1)", "rsa.transform.int2bytes(300, 1)",
    "rsa.pem.load_pem(b'-----BEGIN X-----\\n-----BEGIN X-----\\n', 'X')", "rsa.common.inverse(2, 4)",
    "rsa.prime.getprime(0)\nrsa.randnum.read_random_bits(0)\nrsa.randnum.randint(0)", "rsa.key.calculate_keys(3, 3, 1)"]])
AS = "from pyasn1.type import univ, char, namedtype, constraint\nfrom pyasn1.codec.der import decoder, encoder\n"
add("pypi/pyasn1", *[AS + s for s in [
    "decoder.decode(b'\\x30\\x05\\x02\\x01')", "decoder.decode(b'')", "decoder.decode(b'\\x02\\x00')\ndecoder.decode(b'\\xff\\xff')",
    "decoder.decode(b'\\x02\\x01\\x01', asn1Spec=univ.OctetString())", "decoder.decode(b'\\x04\\x85\\xff')",
    "univ.Integer('abc')", "univ.Integer(5, subtypeSpec=constraint.ValueRangeConstraint(0, 3))",
    "univ.OctetString(hexValue='zz')", "univ.ObjectIdentifier('1.2.x')", "univ.ObjectIdentifier('')\nunivv",
    "univ.BitString(\"'0102'B\")", "univ.Boolean(2)", "univ.Real('x')", "encoder.encode(univ.Integer())",
    "encoder.encode(univ.Sequence())\ns = univ.Sequence(componentType=namedtype.NamedTypes(namedtype.NamedType('a', univ.Integer())))\nencoder.encode(s)",
    "s = univ.Sequence(componentType=namedtype.NamedTypes(namedtype.NamedType('a', univ.Integer())))\ns['b'] = 1",
    "s = univ.Sequence(componentType=namedtype.NamedTypes(namedtype.NamedType('a', univ.Integer())))\ns['a'] = 'x'",
    "s = univ.SequenceOf(componentType=univ.Integer())\ns[0] = 'x'", "s = univ.SequenceOf(componentType=univ.Integer())\ns[5]",
    "univ.Enumerated('x')", "char.PrintableString('\\u00e9').asOctets()", "char.IA5String(b'\\xff').prettyPrint()\nstr(char.UTF8String(b'\\xff'))",
    "univ.Integer() + 1", "int(univ.Integer())", "univ.Choice().getComponent()", "univ.Null('x')",
    "univ.OctetString(b'x', subtypeSpec=constraint.ValueSizeConstraint(2, 3))", "univ.Integer(1).subtype(implicitTag='x')"]])
PG = "import pygments\nfrom pygments import lexers, formatters, styles, util\n"
add("pypi/pygments", *[PG + s for s in [
    "lexers.get_lexer_by_name('nosuchlang')", "lexers.get_lexer_for_filename('file.nosuchext')",
    "lexers.get_lexer_for_mimetype('x/nosuch')", "lexers.guess_lexer('')", "lexers.find_lexer_class_by_name('nosuch')",
    "lexers.load_lexer_from_file('missing.py')", "open('l.py', 'w').write('x = 1')\nlexers.load_lexer_from_file('l.py')",
    "formatters.get_formatter_by_name('nosuch')", "formatters.get_formatter_for_filename('x.nosuch')",
    "formatters.load_formatter_from_file('missing.py')", "styles.get_style_by_name('nosuch')",
    "formatters.HtmlFormatter(style='nosuch')", "formatters.HtmlFormatter(linenos='maybe')",
    "formatters.HtmlFormatter(hl_lines='a b')\nformatters.HtmlFormatter(lineseparator=1).format([], open('o', 'w'))",
    "pygments.highlight(1, lexers.PythonLexer(), formatters.HtmlFormatter())",
    "pygments.highlight('x', lexers.PythonLexer, formatters.HtmlFormatter())",
    "pygments.highlight('x', lexers.PythonLexer(), formatters.HtmlFormatter)",
    "pygments.lex('x', lexers.PythonLexer)", "lexers.PythonLexer(stripnl='maybe')", "lexers.PythonLexer(tabsize='x')",
    "util.get_bool_opt({'a': 'maybe'}, 'a')", "util.get_int_opt({'a': 'x'}, 'a')", "util.get_list_opt({'a': 1}, 'a')",
    "util.get_choice_opt({'a': 'z'}, 'a', ['x', 'y'])", "formatters.ImageFormatter()",
    "formatters.TerminalFormatter(bg='purple')\nformatters.Terminal256Formatter(style='nosuch')",
    "from pygments.lexer import RegexLexer\nclass L(RegexLexer):\n    tokens = {'root': [('(', 1)]}\nlist(L().get_tokens('x'))",
    "from pygments.lexer import RegexLexer\nclass L(RegexLexer):\n    tokens = {'root': [('a', 1, 'nostate')]}\nlist(L().get_tokens('a'))",
    "from pygments.lexer import RegexLexer\nclass L(RegexLexer):\n    tokens = {}\nlist(L().get_tokens('a'))",
    "from pygments.filters import get_filter_by_name\nget_filter_by_name('nosuch')",
    "lexers.PythonLexer().add_filter('nosuch')", "from pygments.token import string_to_tokentype\nstring_to_tokentype(1)",
    "from pygments.style import Style\nclass S(Style):\n    styles = {pygments.token.Name: 'bogus'}\n",
    "from pygments.style import Style\nclass S(Style):\n    styles = {pygments.token.Name: '#zzz'}\n"]])
PA = "import parso\n"
add("pypi/parso", *[PA + s for s in [
    "parso.parse('def f(:\\n', error_recovery=False)", "parso.parse('x = (', error_recovery=False)",
    "parso.parse('x', version='1.0')", "parso.load_grammar(version='9.9')", "parso.load_grammar(language='ruby')",
    "parso.parse(1)", "parso.parse(path='missing.py')", "parso.parse('if x\\n', error_recovery=False)",
    "parso.parse('x = 1', version='3')", "parso.load_grammar(version='x.y')",
    "parso.parse('a b', error_recovery=False)", "parso.parse('return', error_recovery=False)\nparso.parse(')', error_recovery=False)",
    "parso.parse('x').children[5]", "parso.split_lines(1)", "parso.python_bytes_to_unicode(b'# coding: nosuch\\nx')\n"
    "parso.python_bytes_to_unicode(b'\\xff\\xfe', errors='strict')", "parso.parse('x').get_code(include_prefix=1)\nparso.parse('x').children[0].get_definition().x"]])
JE = "import jedi\n"
add("pypi/jedi", *[JE + s for s in [
    "jedi.Script('import os\\nos.').complete(5, 0)", "jedi.Script('x').complete(1, 5)", "jedi.Script('x').infer(0, 0)",
    "jedi.Script('x').goto(1, -1)", "jedi.Script('x', path=1)", "jedi.Script('x').rename(1, 0, new_name=None)",
    "jedi.Script('x = 1').extract_variable(1, 0, new_name='y', until_line=5)",
    "jedi.Script('def f():\\n    return 1').extract_function(1, 0, new_name='g')",
    "jedi.Script('x').inline(1, 0)", "jedi.Script('x = 1\\nx').get_references(3, 0)",
    "jedi.Script('x').help(1, 9)", "jedi.Script(1)", "jedi.Project(1)", "jedi.create_environment('/nonexistent')",
    "jedi.Script('x').get_signatures(0, 1)", "jedi.Script('x', project=1).complete()",
    "jedi.Script('x').complete(line=1.5)", "jedi.Script('import os').extract_variable(1, 0, new_name='a')"]])
LC = "import libcst as cst\n"
each("pypi/libcst", LC + "cst.parse_module(ARG)",
     ["def f(:\n", "x = (", "if x\n", "class C\n", "return )", "x = 1 +", "print 'x'", "lambda: = 1", "a b",
      "import", "from . import", "def f(*):\n pass\n", "x = [1, 2", "f(**)", "@\ndef f(): pass", "x = 'abc",
      "  x = 1", "if x:\npass", "for in x: pass", "try:\n pass\n"])
add("pypi/libcst", *[LC + s for s in [
    "cst.parse_expression('1 +')", "cst.parse_expression('x = 1')", "cst.parse_statement('x +')",
    "cst.parse_statement('x = 1\\ny = 2')", "cst.Name('1x')", "cst.Name('')", "cst.Integer('abc')",
    "cst.SimpleString('no quotes')", "cst.Float('x')", "cst.Imaginary('1')", "cst.BinaryOperation(cst.Name('a'), cst.Add(), 1)\n"
    "cst.Module([]).code_for_node(1)", "cst.parse_module('x').body[5]", "cst.parse_module('x', config=1)",
    "cst.PartialParserConfig(python_version='2.7')", "cst.PartialParserConfig(encoding='nosuch')",
    "cst.Call(func=cst.Name('f'), args=[cst.Arg(cst.Name('a'), keyword=cst.Name('k')), cst.Arg(cst.Name('b'))])\n"
    "cst.Module(body=[cst.SimpleStatementLine([cst.Expr(cst.Call(func=cst.Name('f'), args=[cst.Arg(cst.Name('a'), keyword=cst.Name('k')), cst.Arg(cst.Name('b'))]))])]).code",
    "cst.Subscript(cst.Name('a'), [])", "cst.Tuple([])\ncst.Module([cst.SimpleStatementLine([cst.Expr(cst.Tuple([], lpar=[]))])]).code",
    "cst.Comment('no hash')", "cst.ParenthesizedWhitespace()\ncst.SimpleWhitespace('x')",
    "cst.Lambda(cst.Parameters(), cst.Name('x'), whitespace_after_lambda=cst.SimpleWhitespace(''))",
    "cst.Dict([cst.StarredDictElement(cst.Name('a'))], lpar=[cst.LeftParen()])",
    "cst.ensure_type(cst.Name('x'), cst.Integer)", "cst.metadata.MetadataWrapper(cst.parse_module('x')).resolve(int)",
    "from libcst.metadata import PositionProvider\ncst.parse_module('x').visit(type('V', (cst.CSTVisitor,), {'METADATA_DEPENDENCIES': (PositionProvider,), "
    "'visit_Name': lambda self, n: self.get_metadata(PositionProvider, n)})())",
    "cst.parse_module('x').with_changes(bogus=1)", "cst.parse_module('x').deep_replace(cst.Name('y'), cst.Name('z')).children[9]"]])
TL = ("import traitlets\nfrom traitlets import HasTraits, Int, Unicode, List, Enum, Bool, Float, Instance, Dict, "
      "Tuple, TraitError, Any, Union, CaselessStrEnum, Type, observe, validate\n")
TLC = TL + ("class A(HasTraits):\n    n = Int(min=0, max=10)\n    s = Unicode()\n    l = List(Int(), maxlen=2)\n"
            "    e = Enum(['a', 'b'])\n    b = Bool()\n    f = Float()\n    i = Instance(dict)\n    d = Dict(value_trait=Int())\n"
            "    t = Tuple(Int(), Unicode())\n    c = CaselessStrEnum(['x'])\n    u = Union([Int(), Bool()])\n    k = Type(klass=dict)\na = A()\n")
add("pypi/traitlets", *[TLC + s for s in [
    "a.n = 'x'", "a.n = 11", "a.n = -1", "a.s = 1", "a.l = ['a']", "a.l = [1, 2, 3]", "a.e = 'z'", "a.b = 'yes'",
    "a.f = 'x'", "a.i = []", "a.d = {'a': 'x'}", "a.t = (1, 2)", "a.t = (1,)", "a.c = 'y'", "a.u = 'x'", "a.k = int",
    "A(n='x')", "A(bogus=1)\nA(n=1).trait_metadata('nosuch', 'x')\nA().trait_metadata('n', 'help')\na.traits()['zz']",
    "a.observe(lambda c: 1 / 0, 'n')\na.n = 2", "a.set_trait('zz', 1)", "a.hold_trait_notifications().__enter__()\na.n = 'x'",
    "class B(HasTraits):\n    x = Int()\n    @validate('x')\n    def _v(self, p):\n        raise TraitError('x must be even')\nB(x=1)",
    "class B(HasTraits):\n    x = Int()\n    @observe('y')\n    def _o(self, c):\n        pass\nB().y = 1\nB(x='q')",
    "class B(HasTraits):\n    x = Instance('no.such.Klass')\nB().x = 1", "class B(HasTraits):\n    x = Int(default_value='x')\nB().x",
    "from traitlets.config import Application, Configurable\nclass App(Application):\n    n = Int(config=True)\n"
    "App().parse_command_line(['--App.n=x'])",
    "from traitlets.config import Application\nApplication().parse_command_line(['--nosuch'])\nApplication().initialize(['--x'])",
    "from traitlets.config import Application\nApplication().load_config_file('missing.py')\nApplication().load_config_file('missing.py', path=['.'])\n"
    "open('c.py', 'w').write('1/0')\nApplication().load_config_file('c.py', path=['.'])",
    "from traitlets.config.loader import KVArgParseConfigLoader\nKVArgParseConfigLoader(['--a=b=c=']).load_config()\n"
    "from traitlets.config import Config\nConfig(a=1).nosuch.x + 1",
    "from traitlets.config import Application\nclass App(Application):\n    aliases = {'n': 'NoSuch.n'}\nApp().parse_command_line(['--n=1'])",
    "traitlets.Int().validate(None, 'x')", "traitlets.List(minlen=2).validate(None, [1])", "traitlets.Unicode().validate(None, b'\\xff')",
    "traitlets.ObjectName().validate(None, '1x')", "traitlets.DottedObjectName().validate(None, 'a..b')",
    "traitlets.CRegExp().validate(None, '(')", "traitlets.TCPAddress().validate(None, ('h', 'p'))",
    "traitlets.import_item('no.such.thing')", "traitlets.link((a, 'n'), (a, 'zz'))", "traitlets.directional_link((a, 'zz'), (a, 'n'))",
    "traitlets.UseEnum(int)", "import enum\nclass E(enum.Enum):\n    A = 1\nclass B(HasTraits):\n    e = traitlets.UseEnum(E)\nB().e = 'Z'"]])
TR = "import trio\n"
add("pypi/trio", *[TR + s for s in [
    "trio.run(lambda: 1)", "async def f():\n    await trio.sleep(-1)\ntrio.run(f)", "trio.sleep(1).send(None)",
    "async def f():\n    trio.run(f)\ntrio.run(f)", "trio.current_time()", "trio.lowlevel.current_task()",
    "async def f():\n    async with trio.open_nursery() as n:\n        n.start_soon(lambda: 1)\ntrio.run(f)",
    "async def f():\n    async with trio.open_nursery() as n:\n        n.start_soon(g)\nasync def g():\n    raise ValueError('child failed')\ntrio.run(f)",
    "async def f():\n    with trio.fail_after(0):\n        await trio.sleep(1)\ntrio.run(f)",
    "async def f():\n    with trio.fail_after(-1):\n        pass\ntrio.run(f)",
    "async def f():\n    s, r = trio.open_memory_channel(0)\n    await s.aclose()\n    await s.send(1)\ntrio.run(f)",
    "async def f():\n    s, r = trio.open_memory_channel(0)\n    await s.aclose()\n    await r.receive()\ntrio.run(f)",
    "trio.open_memory_channel(-1)", "trio.open_memory_channel(1.5)",
    "async def f():\n    s, r = trio.open_memory_channel(0)\n    s.send_nowait(1)\ntrio.run(f)",
    "async def f():\n    l = trio.Lock()\n    l.release()\ntrio.run(f)", "async def f():\n    l = trio.Lock()\n    await l.acquire()\n    await l.acquire()\ntrio.run(f)",
    "async def f():\n    s = trio.Semaphore(1, max_value=1)\n    s.release()\ntrio.run(f)", "trio.Semaphore(-1)",
    "trio.CapacityLimiter(0)", "async def f():\n    c = trio.CapacityLimiter(1)\n    c.release()\ntrio.run(f)",
    "async def f():\n    e = trio.Event()\n    e.set()\n    e.set()\n    trio.Event().statistics().x\ntrio.run(f)",
    "async def f():\n    await trio.open_file(1)\ntrio.run(f)", "async def f():\n    await trio.Path('missing').read_text()\ntrio.run(f)",
    "async def f():\n    c = trio.Condition()\n    c.notify()\ntrio.run(f)",
    "async def f():\n    async with trio.open_nursery() as n:\n        await n.start(g)\nasync def g(task_status=trio.TASK_STATUS_IGNORED):\n    return\ntrio.run(f)",
    "async def f():\n    trio.from_thread.run_sync(lambda: 1)\ntrio.run(f)", "trio.to_thread.current_default_thread_limiter()",
    "async def f():\n    with trio.CancelScope() as s:\n        pass\n    with s:\n        pass\ntrio.run(f)",
    "async def f():\n    trio.lowlevel.reschedule(trio.lowlevel.current_task())\ntrio.run(f)",
    "async def f():\n    await trio.lowlevel.wait_readable(-1)\ntrio.run(f)", "trio.run(lambda: trio.sleep(0), strict_exception_groups='x', bogus=1)",
    "async def f():\n    await trio.sleep_until('x')\ntrio.run(f)", "async def f():\n    trio.move_on_after(float('nan'))\ntrio.run(f)"]])
SC = "from sortedcontainers import SortedList, SortedDict, SortedSet, SortedKeyList\n"
add("pypi/sortedcontainers", *[SC + s for s in [
    "SortedList([1, 2]).remove(5)", "SortedList().pop()", "SortedList([1])[5]", "SortedList([1]).index(9)",
    "SortedList([1, 'a'])", "SortedList([1]).append(0)", "SortedList([1]).insert(0, 1)", "SortedList([1])[0] = 2",
    "SortedList([1]).reverse()", "SortedList([1]).extend([2])", "SortedList([3, 1]).index(1, 5)", "SortedDict({1: 2})[5]",
    "SortedDict().popitem()", "SortedDict().peekitem()", "SortedDict({1: 2}).index(9)", "SortedDict({1: 2}).keys()[5]",
    "SortedSet([1]).remove(5)", "SortedSet().pop()", "SortedSet([1])[5]", "SortedSet([1, 'a'])",
    "SortedKeyList([1], key=lambda x: x.nope)", "SortedKeyList([1], key=len)", "SortedList([1]) * 'x'",
    "SortedList(range(10)).islice(0, 5, -1)\nlist(SortedList(range(10)).irange(1, 5, inclusive=(1,)))",
    "SortedList([1, 2]).bisect('a')", "SortedDict(1)", "SortedDict({1: 2}).setdefault()", "SortedList([1]).__delitem__(5)",
    "SortedList([1, 2]).pop(9)", "SortedDict({1: 2}).pop(5)", "SortedSet([1]).index(9)", "SortedList._check(SortedList([1]))\nSortedList([1])._reset(0)"]])
each("pypi/xmltodict", "import xmltodict\nxmltodict.parse(ARG)",
     ["<a>", "<a></b>", "", "text", "<a><b></a>", "<a x='1' x='2'/>", "<a>&nope;</a>", "<a/><b/>", "<1/>",
      "<a:b/>", "<a>\x00</a>", "<?xml version='9'?><a/>", "<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>"])
add("pypi/xmltodict", "import xmltodict\nxmltodict.unparse({'a': 1, 'b': 2})", "import xmltodict\nxmltodict.unparse({})",
    "import xmltodict\nxmltodict.unparse([1])", "import xmltodict\nxmltodict.unparse({'a': {'@x': {'y': 1}}})",
    "import xmltodict\nxmltodict.parse('<a><b/></a>', item_depth=2, item_callback=lambda p, i: False)",
    "import xmltodict\nxmltodict.parse('<a/>', namespaces=1, process_namespaces=True)\nxmltodict.parse(1)",
    "import xmltodict\nxmltodict.unparse({'a': None, '#text': 1}, full_document=True)",
    "import xmltodict\nxmltodict.parse('<a/>', postprocessor=lambda p, k, v: 1 / 0)",
    "import xmltodict\nxmltodict.unparse({'a b': 1})", "import xmltodict\nxmltodict.parse(b'<a>\\xff</a>', encoding='ascii')")
GQ = ("import graphql\nS = graphql.build_schema('type Query { hello(n: Int!): String\\n user: User }\\n"
      "type User { id: ID! name: String }')\n")
each("pypi/graphql", GQ + "graphql.parse(ARG)",
     ["{", "query { a", "{ a(: 1) }", "query q($x) { a }", "fragment on User { id }", "{ a(x: ) }", "mutation",
      "{ ... }", "subscription { a", "{ a @ }", "{ \"str }", "type Q {", "{ a(x: $) }", "query ($x: [Int) { a }", "{ a(x: 1e) }"])
each("pypi/graphql", GQ + "r = graphql.graphql_sync(S, ARG)\nif r.errors: raise r.errors[0]",
     ["{ nosuch }", "{ hello }", "{ hello(n: \"x\") }", "{ user }", "{ user { nosuch } }", "{ hello(n: 1) { x } }",
      "query q($n: Int) { hello(n: $n) }", "query q { hello(n: $m) }", "{ hello(n: 1, m: 2) }", "{ ...F }",
      "fragment F on Nope { id } { user { ...F } }", "mutation { x }", "query A { user { id } } query A { user { id } }",
      "{ user { id } } { user { id } }", "query q($n: Int!) { hello(n: 1) }", "{ __type { name } }", "subscription { hello }"])
add("pypi/graphql", *[GQ + s for s in [
    "graphql.build_schema('type Query { a: Nope }')", "graphql.build_schema('type Query { a: String } type Query { b: Int }')",
    "graphql.build_schema('type X { a: Int }')\ngraphql.build_schema('type Query { a: Int } extend type Nope { b: Int }')",
    "graphql.build_schema('type Query { a(x: Unknown): Int }')", "graphql.build_schema('type Query')\ngraphql.build_schema('type Query { a: Int } directive @d on BOGUS')",
    "graphql.build_schema('{')", "graphql.GraphQLSchema(query=1)", "graphql.GraphQLObjectType('', {})",
    "graphql.GraphQLObjectType('1x', {})", "graphql.GraphQLInt.serialize('x')", "graphql.GraphQLInt.serialize(2**40)",
    "graphql.GraphQLInt.parse_value(1.5)", "graphql.GraphQLFloat.parse_value('x')", "graphql.GraphQLBoolean.serialize('x')",
    "graphql.GraphQLID.serialize(object())", "graphql.GraphQLString.parse_value(1)",
    "graphql.execute(S, graphql.parse('{ hello }'))\ngraphql.execute(S, graphql.parse('{ hello(n: 1) }'), operation_name='nope').errors[0].x",
    "graphql.assert_valid_schema(graphql.GraphQLSchema())\ngraphql.assert_valid_schema(graphql.build_schema('type Query { a: Int }', assume_valid=True))\n"
    "graphql.assert_valid_schema(graphql.GraphQLSchema(graphql.GraphQLObjectType('Query', {})))",
    "graphql.utilities.value_from_ast_untyped(1)", "graphql.utilities.coerce_input_value('x', graphql.GraphQLInt)",
    "graphql.utilities.coerce_input_value(None, graphql.GraphQLNonNull(graphql.GraphQLInt))",
    "graphql.GraphQLNonNull(graphql.GraphQLNonNull(graphql.GraphQLInt))", "graphql.GraphQLList(1)",
    "graphql.GraphQLEnumType('E', {'A': 1}).serialize(2)", "graphql.GraphQLEnumType('E', {'A': 1}).parse_value('B')",
    "graphql.utilities.get_operation_ast(graphql.parse('{ a } { b }'))\nS.get_type('Nope').fields",
    "graphql.utilities.type_from_ast(S, graphql.parse('{ a }'))", "graphql.print_ast(1)",
    "graphql.lexicographic_sort_schema(1)\n", "graphql.utilities.build_client_schema({})",
    "graphql.utilities.build_client_schema({'__schema': {}})", "graphql.language.Source(1)", "graphql.language.Source('x', location_offset=1)"]])
ITS = "import itsdangerous\ns = itsdangerous.URLSafeTimedSerializer('secret')\n"
add("pypi/itsdangerous", *[ITS + x for x in [
    "s.loads('garbage')", "s.loads(s.dumps('x') + 'x')", "itsdangerous.URLSafeTimedSerializer('other').loads(s.dumps('x'))",
    "import time\nt = s.dumps('x')\ns.loads(t, max_age=-1)", "s.loads('')", "s.loads('a.b.c')",
    "itsdangerous.Signer('k').unsign('value')", "itsdangerous.Signer('k').unsign('value.sig')", "itsdangerous.Signer('k').unsign(b'value.AAAA')",
    "itsdangerous.TimestampSigner('k').unsign(itsdangerous.Signer('k').sign('x'))", "itsdangerous.TimestampSigner('k').unsign('x.y.z')",
    "itsdangerous.Serializer('k').loads('{bad')", "itsdangerous.Serializer('k').loads(itsdangerous.Signer('k', salt='itsdangerous').sign('{bad'))",
    "itsdangerous.Serializer('k').dumps(object())", "itsdangerous.URLSafeSerializer('k').loads('.x')",
    "itsdangerous.URLSafeSerializer('k').loads('eJ.x')", "itsdangerous.Signer('k', key_derivation='nosuch').sign('x')",
    "itsdangerous.Signer('k', sep='a')", "itsdangerous.Signer([]).sign('x')", "itsdangerous.base64_decode('!!!')",
    "itsdangerous.URLSafeSerializer('k').loads(itsdangerous.URLSafeSerializer('k').dumps('x').replace('.', '!'))",
    "itsdangerous.Signer('k').sign(1)", "s.loads(s.dumps('x'), max_age='x')", "itsdangerous.URLSafeSerializer('k').loads_unsafe('x')[1].nope"]])
RQ = "import requests\n"
add("pypi/requests", *[RQ + s for s in [
    "requests.Request('GET', 'not a url').prepare()", "requests.Request('GET', 'http://').prepare()",
    "requests.Request('GET', 'ftp:/x').prepare()\nrequests.Session().get_adapter('ftp://x')",
    "requests.Request('GET', 'http://h', headers={'X': 1}).prepare()", "requests.Request('GET', 'http://h', headers={'X': 'a\\nb'}).prepare()",
    "requests.Request('GET', 'http://h', headers={' X': 'a'}).prepare()", "requests.Request('POST', 'http://h', files={'f': 1}, json={}).prepare()",
    "requests.Request('POST', 'http://h', data=iter([b'x']), files={'f': b'x'}).prepare()",
    "requests.Request('GET', 'http://h:port/').prepare()", "requests.Request('GET', 'http://[::1/').prepare()",
    "requests.Request('GET', '://h').prepare()", "requests.Request('GET', 'http://\\u2603..com').prepare()",
    "requests.Request('GET', 'http://' + 'a' * 64 + '.com').prepare()", "requests.get('mailto:x@y')",
    "requests.get('file:///etc/passwd')", "requests.get('http://h', timeout='x')", "requests.get('http://h', timeout=(1, 2, 3))",
    "requests.Session().mount('x', 1)\nrequests.Session().get('nosuchscheme://h')", "r = requests.Response()\nr.status_code = 404\nr.url = 'http://h/x'\nr.raise_for_status()",
    "r = requests.Response()\nr.status_code = 500\nr.reason = 'Server Error'\nr.url = 'http://h/'\nr.raise_for_status()",
    "r = requests.Response()\nr._content = b'{bad'\nr.json()", "r = requests.Response()\nr._content = b''\nr.encoding = 'utf-8'\nr.json()",
    "requests.utils.get_auth_from_url(1)", "requests.utils.super_len(object())\nrequests.utils.guess_json_utf(1)",
    "requests.utils.to_key_val_list(1)", "requests.utils.from_key_val_list(1)", "requests.utils.parse_header_links(1)",
    "requests.utils.check_header_validity(('X', 1))", "requests.utils.check_header_validity(('X', ' a'))",
    "requests.cookies.RequestsCookieJar().set('a', 1)\nj = requests.cookies.RequestsCookieJar()\nj.set('a', '1', domain='x')\nj.set('a', '2', domain='y')\nj['a']",
    "requests.cookies.RequestsCookieJar()['missing']", "requests.cookies.create_cookie('a', 'b', bogus=1)",
    "requests.structures.CaseInsensitiveDict()['x']", "requests.auth.HTTPDigestAuth('u', 'p').build_digest_header('GET', 'http://h')",
    "requests.adapters.HTTPAdapter(max_retries='x')\nrequests.adapters.HTTPAdapter().cert_verify(requests.adapters.HTTPAdapter().get_connection('https://h'), 'https://h', 'missing.pem', None)",
    "requests.Request('GET', 'http://h', params=1).prepare()", "requests.Request('GET', 'http://h', auth=1).prepare()",
    "requests.Request('POST', 'http://h', json=object()).prepare()"]])
each("pypi/urllib3", "import urllib3\nurllib3.util.parse_url(ARG)",
     ["http://h:port/", "http://[::1/", "http://h:99999/", "://", "http://a b/", "http://h:-1", "http://\u2603:x/",
      "http://" + "a" * 300 + ".com/", "http://h/\x00", "http://[zz]/"])
add("pypi/urllib3", *["import urllib3\n" + s for s in [
    "urllib3.util.Timeout(connect='x')", "urllib3.util.Timeout(connect=-1)", "urllib3.util.Timeout(total=True)",
    "urllib3.util.Retry(total=0).increment(method='GET', url='/')", "urllib3.util.Retry(total=1, status_forcelist=[500]).increment().increment()",
    "urllib3.util.Retry(redirect=0).increment(response=urllib3.HTTPResponse(status=302, headers={'Location': '/x'}))",
    "urllib3.util.Retry(bogus=1)", "urllib3.util.Retry.from_int('x')", "urllib3.util.make_headers(basic_auth=1)",
    "urllib3.PoolManager().connection_from_url('ftp://h')", "urllib3.PoolManager().connection_from_url('nota url')",
    "urllib3.connection_from_url('http://h:x')", "urllib3.HTTPConnectionPool('h', maxsize=0)\nurllib3.HTTPConnectionPool('h', maxsize=0)._get_conn(timeout=0)",
    "urllib3.HTTPConnectionPool('h').is_same_host(1)", "urllib3.HTTPConnectionPool('h').urlopen('GET', 'http://other/', assert_same_host=True)",
    "urllib3.ProxyManager('nota url')", "urllib3.ProxyManager('ftp://h')", "urllib3.fields.RequestField('a', 'b').make_multipart(content_type=1)\n"
    "urllib3.encode_multipart_formdata({'a': 1})", "urllib3.encode_multipart_formdata([('a', (1, 2, 3, 4, 5))])",
    "urllib3.HTTPHeaderDict()['x']", "urllib3.HTTPHeaderDict(1)", "urllib3.HTTPResponse(body=b'{', headers={}).json()",
    "urllib3.HTTPResponse(body=b'x', headers={'content-encoding': 'gzip'}, preload_content=False).read(decode_content=True)",
    "urllib3.HTTPResponse(body=b'x', headers={'content-encoding': 'deflate'}).data", "urllib3.util.ssl_.resolve_cert_reqs('BOGUS')",
    "urllib3.util.ssl_.resolve_ssl_version('BOGUS')", "urllib3.util.ssl_.create_urllib3_context(ssl_minimum_version='x')",
    "urllib3.util.ssl_.create_urllib3_context(ciphers='NOSUCHCIPHER')", "urllib3.util.assert_fingerprint(b'x', 'zz')",
    "urllib3.util.assert_fingerprint(b'x', 'aa' * 20)", "urllib3.request('GET', 'nota url', timeout=0.1)",
    "urllib3.PoolManager(num_pools=0).request('GET', 'http://h', retries=urllib3.util.Retry(0, connect=0), timeout=0.1)"]])
each("pypi/regex", "import regex\nregex.compile(ARG)",
     ["(", "[a-", "a**", "(?P<n>x)(?P<n>y", "\\", "x{2,1}", "[z-a]", "(?P=missing)", "(?i", "a)", "*a", "\\p{Nope}",
      "(?<n>", "[[:nope:]]", "(?(1)a|b|c)", "\\N{NOSUCH NAME}", "(?V9)", "(?flags)", "\\g<", "(?|a"])
add("pypi/regex", "import regex\nregex.sub('(a)', '\\\\2', 'a')", "import regex\nregex.match('(a)', 'a').group(5)",
    "import regex\nregex.sub('a', '\\\\g<x>', 'a')", "import regex\nregex.compile(b'x').match('x')",
    "import regex\nregex.compile('x', flags=regex.LOCALE | regex.UNICODE)", "import regex\nregex.match('a', 'a', timeout=-1)\nregex.match('(a+)+b', 'a' * 40, timeout=0.01)",
    "import regex\nregex.escape(1)", "import regex\nregex.match('(?P<a>x)', 'x').group('b')")
add("pypi/markupsafe", "import markupsafe\nmarkupsafe.Markup('%s %s') % ('a',)", "import markupsafe\nmarkupsafe.Markup('{x}').format()",
    "import markupsafe\nmarkupsafe.Markup('{0}').format()", "import markupsafe\nmarkupsafe.Markup('%(a)s') % {'b': 1}",
    "import markupsafe\nmarkupsafe.Markup('{!z}').format(1)", "import markupsafe\nmarkupsafe.Markup('x') + 1",
    "import markupsafe\nmarkupsafe.Markup('%d') % 'x'", "import markupsafe\nmarkupsafe.Markup('{:q}').format(1)",
    "import markupsafe\nclass O:\n    def __html_format__(self, spec):\n        raise ValueError('bad spec')\nmarkupsafe.Markup('{0:x}').format(O())",
    "import markupsafe\nclass O:\n    def __html__(self):\n        return 1\nmarkupsafe.escape(O()) + 'x'\nmarkupsafe.Markup('{0}').format(type('P', (), {'__html__': lambda s: 'x', '__html_format__': None})())",
    "import markupsafe\nmarkupsafe.Markup('%s') % (object(), 1)", "import markupsafe\nmarkupsafe.Markup('{0.nope}').format(1)")
FL = "import flask\napp = flask.Flask('t')\n"
add("pypi/flask", *[FL + s for s in [
    "flask.request.args", "flask.session['x']", "flask.g.x", "flask.current_app.name", "flask.url_for('x')",
    "with app.test_request_context():\n    flask.url_for('nosuch')", "with app.app_context():\n    flask.url_for('nosuch')",
    "@app.route('/')\ndef a():\n    pass\n@app.route('/x')\ndef a():\n    pass", "app.config.from_file('missing.json', load=lambda f: 1)",
    "app.config.from_pyfile('missing.py')", "app.config.from_envvar('NOSUCH_ENV')", "app.config.from_object('no.such.mod')",
    "app.config.from_mapping({'a': 1}, {'b': 2}, c=3)", "with app.test_request_context():\n    flask.session['x'] = 1",
    "with app.test_request_context():\n    flask.abort(404)", "with app.test_request_context():\n    flask.abort(400, 'bad')",
    "with app.test_request_context(data='{', content_type='application/json'):\n    flask.request.get_json()",
    "with app.test_request_context():\n    flask.request.form['x']", "with app.test_request_context():\n    flask.send_file('missing.txt')",
    "with app.test_request_context():\n    flask.send_from_directory('.', '../etc/passwd')", "with app.test_request_context():\n    flask.render_template('missing.html')",
    "with app.test_request_context():\n    flask.render_template_string('{{ x')", "with app.app_context():\n    flask.jsonify(object())",
    "with app.app_context():\n    flask.make_response(1)\nwith app.test_request_context():\n    flask.make_response(object())",
    "@app.route('/')\ndef i():\n    return None\napp.test_client().get('/')\napp.testing = True\napp.test_client().get('/')",
    "@app.route('/')\ndef i():\n    return 1 / 0\napp.testing = True\napp.test_client().get('/')",
    "@app.route('/')\ndef i():\n    return ('a', 200, 1, 2)\napp.testing = True\napp.test_client().get('/')",
    "app.register_blueprint(flask.Blueprint('b', 't'))\napp.register_blueprint(flask.Blueprint('b', 't'))\n"
    "app.register_blueprint(flask.Blueprint('b.c', 't'))", "flask.Blueprint('a.b', 't')", "flask.Blueprint('', 't')",
    "app.add_url_rule('/', view_func=1)", "app.add_url_rule('/<bad', 'x', lambda: 'x')", "app.errorhandler(999)(lambda e: 'x')",
    "app.errorhandler(1)(lambda e: 'x')", "app.register_error_handler(ValueError(), lambda e: 'x')", "app.json.loads('{')",
    "app.json.dumps(object())", "flask.Flask('t', static_folder='s', static_url_path='x')\nflask.Flask('t', host_matching=True, static_host=None)",
    "import flask.sessions\nwith app.test_request_context():\n    app.secret_key = None\n    app.session_interface.open_session(app, flask.request).x = 1\n"
    "    flask.session['a'] = 1"]])
CR = "from cryptography.fernet import Fernet, InvalidToken\nfrom cryptography.hazmat.primitives import hashes, serialization\n"
add("pypi/cryptography", *[CR + s for s in [
    "Fernet('short')", "Fernet(Fernet.generate_key()).decrypt(b'garbage')", "Fernet(Fernet.generate_key()).decrypt(Fernet(Fernet.generate_key()).encrypt(b'x'))",
    "f = Fernet(Fernet.generate_key())\nf.decrypt(f.encrypt(b'x'), ttl=-1)\nimport time\nf.decrypt_at_time(f.encrypt_at_time(b'x', 0), ttl=1, current_time=100)",
    "Fernet(Fernet.generate_key()).encrypt('str')", "hashes.Hash(hashes.SHA256()).update('str')",
    "h = hashes.Hash(hashes.SHA256())\nh.finalize()\nh.update(b'x')", "hashes.Hash(hashes.SHAKE128(-1))",
    "serialization.load_pem_private_key(b'garbage', password=None)", "serialization.load_pem_public_key(b'-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----\\n')",
    "serialization.load_der_private_key(b'\\x30\\x00', password=None)", "serialization.load_ssh_public_key(b'ssh-rsa garbage')",
    "serialization.load_ssh_private_key(b'garbage', password=None)",
    "from cryptography.hazmat.primitives.asymmetric import rsa\nrsa.generate_private_key(3, 512)",
    "from cryptography.hazmat.primitives.asymmetric import rsa\nrsa.generate_private_key(65537, 256)",
    "from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes\nCipher(algorithms.AES(b'k' * 7), modes.CBC(b'i' * 16))",
    "from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes\nCipher(algorithms.AES(b'k' * 16), modes.CBC(b'i' * 3))",
    "from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes\ne = Cipher(algorithms.AES(b'k' * 16), modes.CBC(b'i' * 16)).encryptor()\ne.update(b'x')\ne.finalize()",
    "from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes\nd = Cipher(algorithms.AES(b'k' * 16), modes.GCM(b'i' * 12, b't' * 16)).decryptor()\nd.finalize()",
    "from cryptography.hazmat.primitives.ciphers.aead import AESGCM\nAESGCM(b'k' * 16).decrypt(b'n' * 12, b'x' * 20, None)",
    "from cryptography.hazmat.primitives.ciphers.aead import AESGCM\nAESGCM(b'k' * 5)",
    "from cryptography.hazmat.primitives import padding\nu = padding.PKCS7(128).unpadder()\nu.update(b'x' * 16)\nu.finalize()",
    "from cryptography.hazmat.primitives import padding\npadding.PKCS7(7)", "from cryptography.hazmat.primitives import hmac\nh = hmac.HMAC(b'k', hashes.SHA256())\nh.verify(b'x')",
    "from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC\nk = PBKDF2HMAC(hashes.SHA256(), 32, b's', 1)\nk.derive(b'p')\nk.derive(b'p')",
    "from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC\nPBKDF2HMAC(hashes.SHA256(), 32, b's', 1).verify(b'p', b'x' * 32)",
    "from cryptography import x509\nx509.load_pem_x509_certificate(b'garbage')", "from cryptography import x509\nx509.load_der_x509_certificate(b'\\x30\\x00')",
    "from cryptography import x509\nx509.Name([1])", "from cryptography import x509\nfrom cryptography.x509.oid import NameOID\nx509.NameAttribute(NameOID.COUNTRY_NAME, 'USA')",
    "from cryptography import x509\nx509.CertificateBuilder().serial_number(-1)", "from cryptography import x509\nx509.DNSName(1)",
    "from cryptography import x509\nx509.ObjectIdentifier('x.y')", "from cryptography.hazmat.primitives.asymmetric import ec\nec.derive_private_key(-1, ec.SECP256R1())",
    "from cryptography.hazmat.primitives.asymmetric import ed25519\ned25519.Ed25519PublicKey.from_public_bytes(b'x')",
    "from cryptography.hazmat.primitives.asymmetric import ed25519\nk = ed25519.Ed25519PrivateKey.generate()\nk.public_key().verify(b'x' * 64, b'm')"]])
DV = "import dotenv, io\n"
add("pypi/dotenv", *[DV + s for s in [
    "dotenv.dotenv_values(stream=io.StringIO('A=1\\nB'), interpolate=True)['C']", "dotenv.set_key('missing/.env', 'A', '1')",
    "dotenv.get_key('.env', 'A')\nopen('.env', 'w').write('A=1')\ndotenv.unset_key('.env', 'B')\ndotenv.set_key('.env', 'A', '1', quote_mode='bogus')",
    "dotenv.load_dotenv(stream=1)", "dotenv.dotenv_values(1)", "dotenv.find_dotenv(raise_error_if_not_found=True, usecwd=True)",
    "dotenv.set_key('.env', 'A', 1)", "dotenv.unset_key('.env', 'A')\ndotenv.main.rewrite('missing/x').__enter__()"]])
PK = "from pip._vendor.packaging import version, specifiers, requirements, markers, tags, utils\n"
add("pypi/pip", *[PK + s for s in [
    "version.Version('not a version')", "version.Version('1.0-')", "specifiers.SpecifierSet('>=1.0,<')",
    "specifiers.Specifier('~=1')", "specifiers.Specifier('==1.*.1')", "requirements.Requirement('pkg >=')",
    "requirements.Requirement('pkg[extra')", "requirements.Requirement('pkg; python_version >')",
    "requirements.Requirement('1pkg!')", "markers.Marker('python_version >> \"3\"')", "markers.Marker('os_name == \"x\"').evaluate({'os_name': 1})\n"
    "markers.Marker('extra == \"a\"').evaluate({})\nmarkers.Marker('nosuch == \"a\"')", "markers.Marker('python_version == \"3\" and')",
    "utils.canonicalize_version(1)", "utils.parse_wheel_filename('bad.whl')", "utils.parse_wheel_filename('pkg-1.0-py3-none-any.zip')",
    "utils.parse_wheel_filename('pkg-x.y-py3-none-any.whl')", "utils.parse_sdist_filename('pkg.zip')", "utils.parse_sdist_filename('pkg-x!y.tar.gz')",
    "tags.parse_tag('py3-none')", "version.Version('1.0') < 'x'", "specifiers.SpecifierSet('==1.0').contains('junk version')\n"
    "specifiers.Specifier('===')", "from pip._vendor import tomli\ntomli.loads('a = ')", "from pip._vendor import tomli\ntomli.loads('a = 1\\na = 2')",
    "from pip._vendor import tomli\ntomli.loads('[t]\\n[t]')", "from pip._vendor.distlib.version import NormalizedVersion\nNormalizedVersion('x.y')",
    "from pip._vendor import msgpack\nmsgpack.unpackb(b'\\xc1')", "from pip._vendor import msgpack\nmsgpack.unpackb(b'\\x92\\x01')",
    "from pip._vendor import msgpack\nmsgpack.packb(object())", "from pip._vendor import idna\nidna.encode('a..b')",
    "from pip._vendor import idna\nidna.decode('xn--zz')", "from pip._vendor.packaging.version import InvalidVersion\nversion.parse('0.1.0dev-x')"]])
JP = "import jsonpath_ng\nfrom jsonpath_ng.ext import parse as xparse\n"
each("pypi/jsonpath_ng", JP + "jsonpath_ng.parse(ARG)",
     ["$.[", "$..", "$.a[?", "foo bar", "$.a[1:2:3:4]", "$[*", "$.'x", "$.a[?(@.b > 1)]", "&", "$.a.`nosuch`"])
each("pypi/jsonpath_ng", JP + "xparse(ARG).find({'a': [1, 'x']})",
     ["$.a[?(@ > )]", "$.a[?(@.b ~ 'x')]", "$.a.`sorted(", "$.a[?(@ == 'x'", "$.a.`split(,)`", "$.a.`sub(/(/, x)`",
      "$.a[*] + 'x'", "$.a.`str(`", "$.a[?(@ =~ '(')]", "$.a.`len` * 2"])
add("pypi/jsonpath_ng", JP + "jsonpath_ng.parse('$.a[5]').update({'a': [1]}, 2)\njsonpath_ng.parse('$.a.b').find({'a': 1})[0]",
    JP + "jsonpath_ng.parse('$.a').find(1)[0].value.x", JP + "jsonpath_ng.Fields()\njsonpath_ng.parse(1)")
RF = "import referencing, referencing.jsonschema\nfrom referencing import Registry, Resource\n"
add("pypi/referencing", *[RF + s for s in [
    "Registry().resolver().lookup('http://x/nope')", "Registry().resolver().lookup('#/a')",
    "Resource.from_contents({})", "Resource.from_contents({'$schema': 'http://nosuch/'})",
    "r = Resource.from_contents({'$schema': 'https://json-schema.org/draft/2020-12/schema', '$id': 'http://x/s'})\n"
    "Registry().with_resource('http://x/s', r).resolver().lookup('http://x/s#/nope')",
    "r = Resource.from_contents({'$schema': 'https://json-schema.org/draft/2020-12/schema'})\n"
    "Registry().with_resource('http://x/s', r).resolver().lookup('http://x/s#nosuchanchor')",
    "referencing.jsonschema.specification_with('http://nosuch/')", "Registry()['http://x/nope']",
    "Registry().crawl().contents('http://x')", "Registry(retrieve=lambda u: 1 / 0).resolver().lookup('http://x/y')",
    "Registry().with_contents([('http://x', {})])", "referencing.jsonschema.DRAFT202012.create_resource({}).pointer('/a', Registry().resolver())",
    "Registry().remove('http://x/nope')", "Registry().get_or_retrieve('http://x')", "Registry().anchor('http://x', 'a')"]])
add("pypi/six", "import six\nsix.reraise(ValueError, ValueError('re-raised'), None)", "import six\nsix.raise_from(KeyError('k'), None)",
    "import six\nsix.moves.nosuch", "import six\nsix.ensure_str(1)", "import six\nsix.ensure_binary(1)", "import six\nsix.ensure_text(1)",
    "import six\nsix.get_unbound_function(1)", "import six\nsix.int2byte(300)", "import six\nsix.byte2int('')", "import six\nsix.indexbytes(b'', 5)",
    "import six\nsix.assertCountEqual(__import__('unittest').TestCase('__init__'), [1], [2])",
    "import six\nsix.assertRegex(__import__('unittest').TestCase('__init__'), 'a', 'b')", "import six\nsix.print_(1, sep=1)")
