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
