#include "source/pyenv.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "catalog/catalog.h"
#include "extract/extractor.h"
#include "test_util.h"

namespace errdex::source {
namespace {

namespace fs = std::filesystem;
using errdex::testing::TempDir;

TEST(PyenvNames, NormalizeDistName) {
  EXPECT_EQ(NormalizeDistName("PyYAML"), "pyyaml");
  EXPECT_EQ(NormalizeDistName("typing_extensions"), "typing-extensions");
  EXPECT_EQ(NormalizeDistName("zope.interface"), "zope-interface");
  EXPECT_EQ(NormalizeDistName("No.URL__-Pkg"), "no-url-pkg");
}

TEST(PyenvNames, RepositoryFromForgeUrls) {
  RepositoryRef r = RepositoryFromUrl("https://github.com/PyCQA/flake8.git");
  EXPECT_EQ(r.url, "https://github.com/PyCQA/flake8");
  EXPECT_EQ(r.library, "pycqa/flake8");
  r = RepositoryFromUrl("  http://www.GitHub.com/jax-ml/jax/tree/main/jaxlib?x=1#readme ");
  EXPECT_EQ(r.url, "https://github.com/jax-ml/jax");
  EXPECT_EQ(r.library, "jax-ml/jax");
  r = RepositoryFromUrl("git+https://user@github.com:443/a/b");
  EXPECT_EQ(r.library, "a/b");
  r = RepositoryFromUrl("https://gitlab.com/grp/proj/-/issues");
  EXPECT_EQ(r.url, "https://gitlab.com/grp/proj");
  EXPECT_EQ(r.library, "grp/proj");
  r = RepositoryFromUrl("https://codeberg.org/o/r");
  EXPECT_EQ(r.library, "o/r");
  r = RepositoryFromUrl("https://bitbucket.org/o/r/src/master/");
  EXPECT_EQ(r.library, "o/r");
}

TEST(PyenvNames, RepositoryFromOtherUrls) {
  // A subgroup has no OWNER/REPO; the URL is still a link.
  RepositoryRef r = RepositoryFromUrl("https://gitlab.com/grp/sub/proj");
  EXPECT_EQ(r.url, "https://gitlab.com/grp/sub/proj");
  EXPECT_EQ(r.library, "");
  r = RepositoryFromUrl("https://sympy.org");
  EXPECT_EQ(r.url, "https://sympy.org");
  EXPECT_EQ(r.library, "");
  // Pages of the forge, not repositories.
  EXPECT_EQ(RepositoryFromUrl("https://github.com/sponsors/someone").url, "");
  EXPECT_EQ(RepositoryFromUrl("https://github.com/pallets").url, "");
  EXPECT_EQ(RepositoryFromUrl("https://github.com/a/..").library, "");
  EXPECT_EQ(RepositoryFromUrl("ftp://github.com/a/b").url, "");
  EXPECT_EQ(RepositoryFromUrl("github.com/a/b").url, "");
  EXPECT_EQ(RepositoryFromUrl("https://github.com/a b/c").url, "");
  EXPECT_EQ(RepositoryFromUrl("https://github.com/\xc3\xa9/c").url, "");
  EXPECT_EQ(RepositoryFromUrl("").url, "");
}

std::string Metadata(const std::string& headers, const std::string& body = "") {
  return "Metadata-Version: 2.1\n" + headers + "\n" + body;
}

// A dist-info whose RECORD lists `files` (written too, with content) and
// the metadata directory's own files.
void WriteDist(const TempDir& dir, const std::string& site, const std::string& dist_info,
               const std::string& metadata, const std::vector<std::string>& files,
               const std::string& extra_record = "") {
  std::string record;
  for (const std::string& f : files) {
    dir.Write(site + "/" + f, "x = 1\n");
    record += f + ",sha256=abc,6\n";
  }
  record += dist_info + "/METADATA,,\n" + dist_info + "/RECORD,,\n" + extra_record;
  dir.Write(site + "/" + dist_info + "/METADATA", metadata);
  dir.Write(site + "/" + dist_info + "/RECORD", record);
}

std::map<std::string, const Distribution*> ByName(const std::vector<Distribution>& dists) {
  std::map<std::string, const Distribution*> out;
  for (const Distribution& d : dists) out[d.normalized_name] = &d;
  return out;
}

std::vector<std::string> Paths(const Distribution& d) {
  std::vector<std::string> out;
  for (const SourceFile& f : d.files) out.push_back(f.path);
  return out;
}

const FileIssue* FindIssue(const std::vector<FileIssue>& issues, const std::string& reason,
                           const std::string& path_part) {
  for (const FileIssue& i : issues) {
    if (i.reason == reason && i.path.find(path_part) != std::string::npos) return &i;
  }
  return nullptr;
}
// Two site dirs as sys.path orders them, with the shapes installed
// distributions come in.
class PyenvSite : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteDist(dir_, "site1", "alpha-1.0.dist-info",
              Metadata("Name: Alpha_Pkg\nVersion: 1.0\n"
                       "Project-URL: Documentation, https://alpha.readthedocs.io\n"
                       "Project-URL: Funding, https://github.com/sponsors/alpha\n"
                       "Project-URL: Source, https://github.com/Alpha-Org/alpha.git\n"),
              {"alpha/__init__.py", "alpha/core.py", "alpha/data.txt"},
              "\"alpha/we,ird \"\"q\"\".py\",sha256=abc,6\n"
              "../../bin/alpha,sha256=abc,6\n"
              "/usr/lib/python3/x.py,,\n"
              "alpha/../alpha/core.py,,\n"
              "alpha/missing.py,sha256=abc,6\n"
              "alpha/link.py,,\n");
    dir_.Write("site1/alpha/we,ird \"q\".py", "x = 1\n");
    dir_.Write("bin/alpha", "#!/bin/sh\n");
    dir_.Write("outside.py", "x = 1\n");
    fs::create_symlink(dir_.path() / "outside.py", dir_.path() / "site1/alpha/link.py");
    dir_.Write("site1/alpha-1.0.dist-info/top_level.txt", "alpha\n\n../x\n");

    // CRLF, a continued header, only Home-page; the body's look-alike
    // header is description text.
    WriteDist(dir_, "site1", "homeonly-2.0.dist-info",
              "Metadata-Version: 2.1\r\nName: homeonly\r\nVersion: 2.0\r\n"
              "Summary: one\r\n  two\r\nHome-page: https://gitlab.com/grp/HomeOnly/-/tree/main\r\n"
              "\r\nProject-URL: Source, https://github.com/evil/evil\r\n",
              {"homeonly.py"});
    WriteDist(dir_, "site1", "plainpkg-0.3.dist-info",
              Metadata("Name: plainpkg\nVersion: 0.3\nHome-page: https://plain.example.org/\n"),
              {"plainpkg/__init__.py"});
    WriteDist(dir_, "site1", "No.URL__Pkg-1.0.dist-info",
              Metadata("garbage line without colon\nName: No.URL__Pkg\nVersion: 1.0+local.1\n"),
              {"nourl.py"});
    WriteDist(dir_, "site1", "broken-1.0.dist-info", std::string("\x00\xff\xfe junk\n", 9),
              {"broken.py"});
    WriteDist(dir_, "site1", "noversion-1.0.dist-info", Metadata("Name: noversion\n"), {"nv.py"});
    WriteDist(dir_, "site1", "badname-1.0.dist-info", Metadata("Name: ../../etc\nVersion: 1.0\n"),
              {"bn.py"});
    // A vendored package stays with the distribution that ships it.
    WriteDist(
        dir_, "site1", "vendory-3.0.dist-info",
        Metadata("Name: vendory\nVersion: 3.0\n"
                 "Project-URL: Repository, https://github.com/v/vendory\n"),
        {"vendory/__init__.py", "vendory/_vendor/six.py", "vendory/_vendor/requests/__init__.py"});
    // Legacy installs: installed-files.txt relative to the egg-info, and a
    // distro's egg-info with only SOURCES.txt.
    dir_.Write("site1/legacy-0.9-py3.11.egg-info/PKG-INFO",
               Metadata("Name: legacy\nVersion: 0.9\nHome-page: https://github.com/old/legacy\n"));
    dir_.Write("site1/legacy-0.9-py3.11.egg-info/installed-files.txt",
               "../legacy/__init__.py\nPKG-INFO\ninstalled-files.txt\n../../bin/legacy\n");
    dir_.Write("site1/legacy/__init__.py", "x = 1\n");
    dir_.Write("site1/debpkg-1.0.egg-info/PKG-INFO", Metadata("Name: debpkg\nVersion: 1.0\n"));
    dir_.Write("site1/debpkg-1.0.egg-info/SOURCES.txt",
               "setup.py\nsrc/debpkg/__init__.py\nsrc/debpkg/_c.c\ndebpkg/extra.py\ntests/t.py\n");
    dir_.Write("site1/debpkg-1.0.egg-info/top_level.txt", "debpkg\n");
    dir_.Write("site1/debpkg/__init__.py", "x = 1\n");
    dir_.Write("site1/debpkg/extra.py", "x = 1\n");
    dir_.Write("site1/tests/t.py", "x = 1\n");
    // Debian strips RECORD: the top-level package is read instead.
    dir_.Write("site1/norecord-1.0.dist-info/METADATA", Metadata("Name: norecord\nVersion: 1.0\n"));
    dir_.Write("site1/norecord/__init__.py", "x = 1\n");
    dir_.Write("site1/norecord/sub/m.py", "x = 1\n");
    // Its guessed top-level package points out of the site dir.
    dir_.Write("site1/escape-1.0.dist-info/METADATA", Metadata("Name: escape\nVersion: 1.0\n"));
    fs::create_directory_symlink(dir_.path() / "site2", dir_.path() / "site1/escape");
    // Two distributions of one namespace package, without file lists.
    for (std::string sub : {"uri", "client"}) {
      dir_.Write("site1/lazr." + sub + "-1.0.egg-info/PKG-INFO",
                 Metadata("Name: lazr." + sub + "\nVersion: 1.0\n"));
      dir_.Write("site1/lazr." + sub + "-1.0.egg-info/top_level.txt", "lazr\n");
      dir_.Write("site1/lazr/" + sub + "/__init__.py", "x = 1\n");
    }

    WriteDist(dir_, "site1", "shadow-2.0.dist-info", Metadata("Name: Shadow\nVersion: 2.0\n"),
              {"shadow.py"});
    WriteDist(dir_, "site2", "shadow-1.0.dist-info", Metadata("Name: shadow\nVersion: 1.0\n"),
              {"shadow.py"});
    WriteDist(dir_, "site2", "only2-1.0.dist-info", Metadata("Name: only2\nVersion: 1.0\n"),
              {"only2.py"});
  }

  Result<std::vector<Distribution>> Read(std::vector<FileIssue>* issues) {
    DistributionOptions o;
    o.want = extract::IsSourcePath;
    return ReadDistributions(
        {dir_.path() / "site1", dir_.path() / "site2", dir_.path() / "missing-site"}, o, issues);
  }

  TempDir dir_;
};

TEST_F(PyenvSite, ReadsNamesVersionsAndLibraries) {
  std::vector<FileIssue> issues;
  Result<std::vector<Distribution>> r = Read(&issues);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  auto by = ByName(*r);
  std::vector<std::string> names;
  for (const Distribution& d : *r) names.push_back(d.normalized_name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"alpha-pkg", "debpkg", "escape", "homeonly", "lazr-client",
                                      "lazr-uri", "legacy", "no-url-pkg", "norecord", "only2",
                                      "plainpkg", "shadow", "vendory"}));
  for (const Distribution& d : *r) {
    EXPECT_TRUE(catalog::IsLibraryName(d.library)) << d.library;
    EXPECT_NE(d.fingerprint, 0u);
  }
  const Distribution& alpha = *by["alpha-pkg"];
  EXPECT_EQ(alpha.name, "Alpha_Pkg");
  EXPECT_EQ(alpha.version, "1.0");
  EXPECT_EQ(alpha.format, "dist-info");
  EXPECT_EQ(alpha.repository_url, "https://github.com/Alpha-Org/alpha");
  EXPECT_EQ(alpha.library, "alpha-org/alpha");
  EXPECT_EQ(alpha.top_level, (std::vector<std::string>{"alpha"}));
  EXPECT_EQ(alpha.site_dir, dir_.path() / "site1");
  EXPECT_EQ(by["homeonly"]->repository_url, "https://gitlab.com/grp/HomeOnly");
  EXPECT_EQ(by["homeonly"]->library, "grp/homeonly");
  EXPECT_EQ(by["plainpkg"]->repository_url, "https://plain.example.org/");
  EXPECT_EQ(by["plainpkg"]->library, "pypi/plainpkg");
  EXPECT_EQ(by["no-url-pkg"]->name, "No.URL__Pkg");
  EXPECT_EQ(by["no-url-pkg"]->version, "1.0+local.1");
  EXPECT_EQ(by["no-url-pkg"]->repository_url, "");
  EXPECT_EQ(by["no-url-pkg"]->library, "pypi/no-url-pkg");
  EXPECT_EQ(by["legacy"]->format, "egg-info");
  EXPECT_EQ(by["legacy"]->library, "old/legacy");
  // The first site dir wins.
  EXPECT_EQ(by["shadow"]->version, "2.0");
  EXPECT_EQ(by["only2"]->site_dir, dir_.path() / "site2");
}

TEST_F(PyenvSite, FilesComeFromTheFileLists) {
  std::vector<FileIssue> issues;
  Result<std::vector<Distribution>> r = Read(&issues);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  auto by = ByName(*r);
  // Quoted names, `..` inside the site dir, nothing outside it, no
  // metadata, only source files, each once.
  EXPECT_EQ(Paths(*by["alpha-pkg"]), (std::vector<std::string>{"alpha/__init__.py", "alpha/core.py",
                                                               "alpha/we,ird \"q\".py"}));
  const SourceFile& first = by["alpha-pkg"]->files[0];
  EXPECT_EQ(first.absolute, dir_.path() / "site1/alpha/__init__.py");
  EXPECT_EQ(first.size, 6u);
  EXPECT_EQ(Paths(*by["vendory"]),
            (std::vector<std::string>{"vendory/__init__.py", "vendory/_vendor/requests/__init__.py",
                                      "vendory/_vendor/six.py"}));
  EXPECT_EQ(Paths(*by["homeonly"]), (std::vector<std::string>{"homeonly.py"}));
  EXPECT_EQ(Paths(*by["legacy"]), (std::vector<std::string>{"legacy/__init__.py"}));
  // SOURCES.txt: the installed ones under a top-level name; not tests/.
  EXPECT_EQ(Paths(*by["debpkg"]),
            (std::vector<std::string>{"debpkg/__init__.py", "debpkg/extra.py"}));
  EXPECT_EQ(Paths(*by["norecord"]),
            (std::vector<std::string>{"norecord/__init__.py", "norecord/sub/m.py"}));
  EXPECT_EQ(Paths(*by["lazr-uri"]), (std::vector<std::string>{"lazr/uri/__init__.py"}));
  EXPECT_EQ(Paths(*by["lazr-client"]), (std::vector<std::string>{"lazr/client/__init__.py"}));
  EXPECT_EQ(Paths(*by["shadow"]), (std::vector<std::string>{"shadow.py"}));
  EXPECT_EQ(by["shadow"]->files[0].absolute, dir_.path() / "site1/shadow.py");
}

TEST_F(PyenvSite, ProblemsAreIssues) {
  std::vector<FileIssue> issues;
  Result<std::vector<Distribution>> r = Read(&issues);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const FileIssue* i = FindIssue(issues, "bad-metadata", "broken-1.0.dist-info");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->detail, "no Name");
  i = FindIssue(issues, "bad-metadata", "noversion-1.0.dist-info");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->detail, "no Version");
  i = FindIssue(issues, "bad-metadata", "badname-1.0.dist-info");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->detail, "invalid Name");
  i = FindIssue(issues, "shadowed", "site2/shadow-1.0.dist-info");
  ASSERT_NE(i, nullptr);
  EXPECT_NE(i->detail.find("shadow 1.0 is shadowed by 2.0"), std::string::npos) << i->detail;
  EXPECT_NE(FindIssue(issues, "missing", "site1/alpha/missing.py"), nullptr);
  EXPECT_NE(FindIssue(issues, "symlink-outside-root", "site1/alpha/link.py"), nullptr);
  EXPECT_NE(FindIssue(issues, "unreadable", "missing-site"), nullptr);
  EXPECT_NE(FindIssue(issues, "symlink-outside-root", "site1/escape"), nullptr);
  i = FindIssue(issues, "no-file-list", "norecord-1.0.dist-info");
  ASSERT_NE(i, nullptr);
  EXPECT_FALSE(i->skipped);
  // Files outside the site dir are not reported: scripts in bin/ are normal.
  EXPECT_EQ(FindIssue(issues, "missing", "bin"), nullptr);
  int missing = 0;
  for (const FileIssue& issue : issues) missing += issue.reason == "missing";
  EXPECT_EQ(missing, 1);
}

TEST_F(PyenvSite, FingerprintFollowsTheFileList) {
  auto fingerprints = [&] {
    Result<std::vector<Distribution>> r = Read(nullptr);
    std::map<std::string, uint64_t> out;
    if (r) {
      for (const Distribution& d : *r) out[d.normalized_name] = d.fingerprint;
    }
    return out;
  };
  std::map<std::string, uint64_t> before = fingerprints();
  EXPECT_EQ(fingerprints(), before);
  // What `pip install -U` does: a new hash in RECORD.
  dir_.Write("site1/vendory-3.0.dist-info/RECORD", "vendory/__init__.py,sha256=new,6\n");
  std::map<std::string, uint64_t> after = fingerprints();
  EXPECT_NE(after["vendory"], before["vendory"]);
  after.erase("vendory");
  before.erase("vendory");
  EXPECT_EQ(after, before);
}

TEST_F(PyenvSite, SizeLimits) {
  std::vector<FileIssue> issues;
  DistributionOptions o;
  o.want = extract::IsSourcePath;
  o.max_record_size = 100;
  o.max_file_size = 3;
  o.max_metadata_size = 30;  // "Name:" is past it
  Result<std::vector<Distribution>> r = ReadDistributions({dir_.path() / "site1"}, o, &issues);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty());
  const FileIssue* cut = FindIssue(issues, "bad-metadata", "alpha-1.0.dist-info");
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->detail, "no Name");
  o.max_metadata_size = 1 << 20;
  issues.clear();
  r = ReadDistributions({dir_.path() / "site1"}, o, &issues);
  ASSERT_TRUE(r.has_value());
  auto by = ByName(*r);
  EXPECT_EQ(by.count("alpha-pkg"), 0u);
  EXPECT_NE(FindIssue(issues, "too-large", "alpha-1.0.dist-info"), nullptr);
  ASSERT_EQ(by.count("homeonly"), 1u);
  EXPECT_TRUE(by["homeonly"]->files.empty());
  EXPECT_NE(FindIssue(issues, "too-large", "site1/homeonly.py"), nullptr);
}

TEST(PyenvDistributions, NoReadableSiteDirFails) {
  TempDir dir;
  std::vector<FileIssue> issues;
  Result<std::vector<Distribution>> r =
      ReadDistributions({dir.path() / "nope"}, DistributionOptions{}, &issues);
  EXPECT_FALSE(r.has_value());
  r = ReadDistributions({}, DistributionOptions{}, &issues);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty());
}

TEST(PyenvDistributions, EditableAndEverything) {
  TempDir dir;
  WriteDist(dir, "site", "ed-1.0.dist-info", Metadata("Name: ed\nVersion: 1.0\n"),
            {"__editable__.ed-1.0.pth", "ed/data.bin"});
  dir.Write("site/ed-1.0.dist-info/direct_url.json",
            R"({"url": "file:///src/ed", "dir_info": {"editable": true}})");
  // Without a predicate every installed file is returned.
  Result<std::vector<Distribution>> r =
      ReadDistributions({dir.path() / "site"}, DistributionOptions{}, nullptr);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_TRUE((*r)[0].editable);
  EXPECT_EQ(Paths((*r)[0]), (std::vector<std::string>{"__editable__.ed-1.0.pth", "ed/data.bin"}));
}

std::string Executable(const TempDir& dir, const std::string& name, const std::string& script) {
  fs::path p = dir.Write(name, script);
  fs::permissions(p, fs::perms::owner_all);
  return p.string();
}

std::string Capture(const std::string& command) {
  std::string out;
  FILE* f = ::popen(command.c_str(), "r");
  if (f == nullptr) return out;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  ::pclose(f);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(PyenvDescribe, RealInterpreter) {
  Result<PythonEnv> env = DescribePythonEnv("python3");
  ASSERT_TRUE(env.has_value()) << env.error().message;
  std::string expected =
      Capture("python3 -I -c 'import sys; print(\"%d.%d.%d\" % sys.version_info[:3])'");
  EXPECT_EQ(std::to_string(env->major) + "." + std::to_string(env->minor) + "." +
                std::to_string(env->micro),
            expected);
  EXPECT_TRUE(env->version.starts_with(expected)) << env->version;
  EXPECT_EQ(env->implementation, "cpython");
  EXPECT_TRUE(fs::is_regular_file(env->stdlib / "os.py")) << env->stdlib;
  EXPECT_TRUE(env->prefix.is_absolute());
  EXPECT_FALSE(env->purelib.empty());
  for (const fs::path& p : env->site_dirs) EXPECT_TRUE(fs::is_directory(p)) << p;
}

TEST(PyenvDescribe, NotAnInterpreter) {
  TempDir dir;
  Result<PythonEnv> env = DescribePythonEnv((dir.path() / "no-such-python").string());
  ASSERT_FALSE(env.has_value());
  EXPECT_EQ(env.error().code, ErrorCode::kNotFound);
  EXPECT_NE(env.error().message.find("no-such-python"), std::string::npos);
  EXPECT_FALSE(DescribePythonEnv("").has_value());

  env = DescribePythonEnv(Executable(dir, "junk", "#!/bin/sh\necho 'Python 2.7 junk'\n"));
  ASSERT_FALSE(env.has_value());
  EXPECT_EQ(env.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(env.error().message.find("printed no description"), std::string::npos);
  EXPECT_NE(env.error().message.find("Python 2.7 junk"), std::string::npos);

  env = DescribePythonEnv(
      Executable(dir, "fails", "#!/bin/sh\necho 'Unknown option: -I' >&2\nexit 2\n"));
  ASSERT_FALSE(env.has_value());
  EXPECT_NE(env.error().message.find("exit status 2"), std::string::npos) << env.error().message;
  EXPECT_NE(env.error().message.find("Unknown option: -I"), std::string::npos);

  env = DescribePythonEnv(Executable(dir, "chatty", "#!/bin/sh\nhead -c 3000000 /dev/zero\n"));
  ASSERT_FALSE(env.has_value());
  EXPECT_NE(env.error().message.find("printed more than"), std::string::npos);
}

TEST(PyenvDescribe, HangsAreTimedOut) {
  TempDir dir;
  DescribeOptions o;
  o.timeout = std::chrono::milliseconds(300);
  // A plain hang, and one whose background child keeps the output open
  // after the script itself has exited.
  for (std::string script : {"#!/bin/sh\nsleep 30\n", "#!/bin/sh\nsleep 30 &\necho hi\n",
                             "#!/bin/sh\nexec >&- 2>&-\nsleep 30\n"}) {
    auto start = std::chrono::steady_clock::now();
    Result<PythonEnv> env = DescribePythonEnv(Executable(dir, "hang", script), o);
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(env.has_value()) << script;
    EXPECT_NE(env.error().message.find("did not answer within 300 ms"), std::string::npos)
        << env.error().message;
    EXPECT_LT(took, std::chrono::seconds(5));
  }
}

std::string Description(const TempDir& dir, const std::string& change = "") {
  std::string p = dir.path().string();
  std::string json = R"({"executable": "/x/bin/python3", "implementation": "cpython",
      "version": "3.13.0rc1", "version_info": [3, 13, 0], "prefix": "/x",
      "base_prefix": "/x", "stdlib": "/x/lib/python3.13", "platstdlib": "/x/lib/python3.13",
      "purelib": "P/b", "platlib": "P/b", "site_packages": ["P/a", "P/a-link", "P/none"],
      "user_site": "P/user", "user_site_enabled": true})";
  for (size_t at; (at = json.find("P/")) != std::string::npos;) json.replace(at, 1, p);
  if (!change.empty()) {
    size_t colon = change.find(':');
    size_t key = json.find("\"" + change.substr(0, colon) + "\"");
    size_t end = json.find_first_of(",}", json.find(':', key) + 1);
    if (json[json.find(':', key) + 2] == '[') end = json.find(']', key) + 1;
    json.replace(key, end - key,
                 "\"" + change.substr(0, colon) + "\": " + change.substr(colon + 1));
  }
  std::string flat;
  for (char c : json) flat += c == '\n' ? ' ' : c;
  return flat;
}

TEST(PyenvDescribe, ParsesAndOrdersSiteDirs) {
  TempDir dir;
  for (const char* d : {"a", "b", "user"}) fs::create_directories(dir.path() / d);
  fs::create_directory_symlink(dir.path() / "a", dir.path() / "a-link");
  // What a sitecustomize prints comes before the answer.
  std::string script = "#!/bin/sh\necho 'hello from sitecustomize'\necho 'errdex-pyenv " +
                       Description(dir) + "'\necho 'a warning' >&2\n";
  Result<PythonEnv> env = DescribePythonEnv(Executable(dir, "py", script));
  ASSERT_TRUE(env.has_value()) << env.error().message;
  EXPECT_EQ(env->version, "3.13.0rc1");
  EXPECT_EQ(env->minor, 13);
  EXPECT_EQ(env->stdlib, "/x/lib/python3.13");
  EXPECT_EQ(env->site_packages.size(), 3u);
  EXPECT_TRUE(env->user_site_enabled);
  EXPECT_EQ(env->site_dirs,
            (std::vector<fs::path>{dir.path() / "user", dir.path() / "a", dir.path() / "b"}));
  env = ParsePythonEnv("errdex-pyenv " + Description(dir, "user_site_enabled:false"));
  ASSERT_TRUE(env.has_value()) << env.error().message;
  EXPECT_EQ(env->site_dirs, (std::vector<fs::path>{dir.path() / "a", dir.path() / "b"}));
}

TEST(PyenvDescribe, RejectsBadDescriptions) {
  TempDir dir;
  ASSERT_TRUE(ParsePythonEnv("errdex-pyenv " + Description(dir)).has_value());
  for (const char* change :
       {"version:\"3.13\"", "version:\"3.13.0; rm -rf /\"", "version_info:[3, 12, 0]", "version:3",
        "stdlib:\"relative/lib\"", "stdlib:null", "prefix:\"\"", "implementation:\"C Python\"",
        "site_packages:\"/x\"", "site_packages:[1]", "site_packages:[\"rel\"]", "user_site:[]",
        "user_site_enabled:\"yes\"", "purelib:\"/x/\\u0000\""}) {
    Result<PythonEnv> env = ParsePythonEnv("errdex-pyenv " + Description(dir, change));
    ASSERT_FALSE(env.has_value()) << change;
    EXPECT_EQ(env.error().code, ErrorCode::kCorrupt);
    EXPECT_NE(env.error().message.find("field '"), std::string::npos) << env.error().message;
  }
  for (const char* output : {"", "errdex-pyenv ", "errdex-pyenv {", "errdex-pyenv [1]",
                             "errdex-pyenv {\"version\": \"3.1.1\"}", "{\"version\": 1}",
                             "errdex-pyenv {\"executable\": \"\\udc80\"}"}) {
    EXPECT_FALSE(ParsePythonEnv(output).has_value()) << output;
  }
  // The optional ones may be null.
  EXPECT_TRUE(ParsePythonEnv("errdex-pyenv " + Description(dir, "user_site:null")).has_value());
}

Distribution Dist(const std::string& normalized, const std::string& library) {
  Distribution d;
  d.name = normalized;
  d.normalized_name = normalized;
  d.library = library;
  return d;
}

std::vector<std::string> Libraries(const std::vector<Distribution>& dists) {
  std::vector<std::string> out;
  for (const Distribution& d : dists) out.push_back(d.library);
  return out;
}

TEST(PyenvDisambiguate, SharedNamesBecomeOneEach) {
  // Seen installed: pydantic_core's Source URL is the pydantic repository.
  std::vector<Distribution> dists = {
      Dist("pydantic", "pydantic/pydantic"), Dist("pydantic-core", "pydantic/pydantic"),
      Dist("pyyaml", "yaml/pyyaml"), Dist("requests", "pypi/requests")};
  DisambiguateLibraries(dists);
  EXPECT_EQ(Libraries(dists),
            (std::vector<std::string>{"pydantic/pydantic", "pydantic/pydantic-core", "yaml/pyyaml",
                                      "pypi/requests"}));

  // No member named like the repository: none keeps it. A name taken by
  // another library falls back to pypi/, whatever order they come in.
  dists = {Dist("plugin-b", "acme/mono"), Dist("plugin-a", "acme/mono"),
           Dist("other", "acme/plugin-a")};
  DisambiguateLibraries(dists);
  EXPECT_EQ(Libraries(dists),
            (std::vector<std::string>{"acme/plugin-b", "pypi/plugin-a", "acme/plugin-a"}));

  // pypi/ taken by a forge repository of that name too: still one each.
  dists = {Dist("x", "acme/mono"), Dist("y", "acme/mono"), Dist("z", "acme/x"),
           Dist("w", "pypi/x")};
  DisambiguateLibraries(dists);
  EXPECT_EQ(Libraries(dists), (std::vector<std::string>{"pypi/x-2", "acme/y", "acme/x", "pypi/x"}));
  std::set<std::string> unique;
  for (const Distribution& d : dists) {
    EXPECT_TRUE(catalog::IsLibraryName(d.library)) << d.library;
    unique.insert(d.library);
  }
  EXPECT_EQ(unique.size(), dists.size());
}

// The issues raised while a distribution is read are also its own.
TEST_F(PyenvSite, EachDistributionKeepsItsIssues) {
  std::vector<FileIssue> issues;
  Result<std::vector<Distribution>> r = Read(&issues);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  size_t own = 0;
  for (const Distribution& d : *r) {
    for (const FileIssue& i : d.issues) {
      ++own;
      EXPECT_TRUE(i.path.starts_with(d.site_dir.string())) << i.path;
      EXPECT_NE(FindIssue(issues, i.reason, i.path), nullptr) << i.path;
    }
  }
  EXPECT_GT(own, 0u);
  EXPECT_LT(own, issues.size());  // bad metadata and shadowing belong to no listed one
}

// The whole discovery on the interpreter on PATH (or $ERRDEX_PYENV_PYTHON),
// with a summary on stdout.
TEST(PyenvDescribe, RealEnvironment) {
  const char* python = std::getenv("ERRDEX_PYENV_PYTHON");
  Result<PythonEnv> env = DescribePythonEnv(python != nullptr ? python : "python3");
  ASSERT_TRUE(env.has_value()) << env.error().message;
  std::vector<FileIssue> issues;
  DistributionOptions o;
  o.want = extract::IsSourcePath;
  Result<std::vector<Distribution>> dists = ReadDistributions(env->site_dirs, o, &issues);
  ASSERT_TRUE(dists.has_value()) << dists.error().message;
  size_t forge = 0, files = 0;
  std::map<std::string, std::vector<std::string>> by_library;
  for (const Distribution& d : *dists) {
    EXPECT_TRUE(catalog::IsLibraryName(d.library)) << d.library;
    forge += !d.library.starts_with("pypi/");
    files += d.files.size();
    by_library[d.library].push_back(d.name);
    for (const SourceFile& f : d.files) {
      ASSERT_TRUE(f.absolute.string().starts_with(d.site_dir.string())) << f.absolute;
    }
  }
  std::map<std::string, int> reasons;
  for (const FileIssue& i : issues) ++reasons[i.reason];
  std::printf("%s %s: %zu site dirs, %zu distributions, %zu on a forge, %zu pypi/, %zu files\n",
              env->executable.c_str(), env->version.c_str(), env->site_dirs.size(), dists->size(),
              forge, dists->size() - forge, files);
  for (const auto& [reason, n] : reasons) std::printf("  issues %s: %d\n", reason.c_str(), n);
  for (const FileIssue& i : issues) {
    if (i.reason != "empty")
      std::printf("  %s: %s %s\n", i.reason.c_str(), i.path.c_str(), i.detail.c_str());
  }
  for (const auto& [library, names] : by_library) {
    if (names.size() > 1) {
      std::printf("  shared library name %s:", library.c_str());
      for (const std::string& n : names) std::printf(" %s", n.c_str());
      std::printf("\n");
    }
  }
  if (std::getenv("ERRDEX_PYENV_LIST") != nullptr) {
    for (const Distribution& d : *dists) {
      std::printf("  %-28s %-12s %-40s %5zu %s\n", d.name.c_str(), d.version.c_str(),
                  d.library.c_str(), d.files.size(), d.repository_url.c_str());
    }
  }
}

}  // namespace
}  // namespace errdex::source
