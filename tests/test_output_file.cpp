#include <doctest/doctest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/weights.h"
#include "output_temporaries.h"
#include "test_support.h"

using embedpe::OutputFile;

namespace {
bool exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

// Files in `path` whose name marks an embedpe temporary.
int temporaries(const std::string& path) {
  int n = 0;
  DIR* dir = ::opendir(path.c_str());
  while (dirent* e = ::readdir(dir)) n += std::string(e->d_name).find(".embedpe-") != std::string::npos;
  ::closedir(dir);
  return n;
}

// Entries of a directory other than . and .. (none once it is removed, even if
// a descriptor still holds it).
int entries(const std::string& path) {
  int n = 0;
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return 0;
  while (dirent* e = ::readdir(dir)) n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
  ::closedir(dir);
  return n;
}
}  // namespace

TEST_CASE("commit renames the whole file into place") {
  const std::string dir = test::temp_dir("output_file_commit");
  const std::string path = dir + "/commit.txt";
  {
    OutputFile out(path);
    out.write("hello ");
    CHECK_FALSE(exists(path));  // nothing at the target until commit
    out.write(std::string(3 << 20, 'x'));  // larger than the buffer
    out.commit();
  }
  CHECK(test::read_file(path).size() == 6 + (3u << 20));
  CHECK(temporaries(dir) == 0);
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK((st.st_mode & 0777) == (0666 & ~mask));
}

TEST_CASE("without commit (an error midway) nothing is left behind, and an old file survives") {
  const std::string dir = test::temp_dir("output_file_abandoned");
  const std::string path = dir + "/abandoned.txt";
  {
    OutputFile first(path);
    first.write("old");
    first.commit();
  }
  {
    OutputFile out(path);
    out.write("new but never committed");
    CHECK(embedpe::temporaries_in_progress() == 1);
  }
  CHECK(test::read_file(path) == "old");
  CHECK(temporaries(dir) == 0);
  CHECK(embedpe::temporaries_in_progress() == 0);
}

TEST_CASE("unwritable outputs are errors naming the path") {
  CHECK_THROWS_WITH_AS(OutputFile(test::temp_path("no/such/dir/x.npy")), doctest::Contains("cannot write output"),
                       embedpe::Error);
  CHECK_THROWS_WITH_AS(OutputFile{test::scratch_dir()}, doctest::Contains("is a directory"), embedpe::Error);
  CHECK_THROWS_AS(OutputFile(""), embedpe::UsageError);
}

TEST_CASE("a full device is an error, not a silent truncation") {
  OutputFile out("/dev/full");
  out.write("x");
  CHECK_THROWS_WITH_AS(out.commit(), doctest::Contains("No space left on device"), embedpe::Error);
}

TEST_CASE("issue 11 – overwriting keeps the file's mode; a symbolic link is kept and its target replaced") {
  const std::string dir = test::temp_dir("output_file_mode");
  const std::string path = dir + "/private.txt";
  {
    OutputFile first(path);
    first.write("old");
    first.commit();
  }
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  REQUIRE(::symlink("private.txt", (dir + "/link.txt").c_str()) == 0);
  {
    OutputFile out(dir + "/link.txt");
    CHECK(out.can_rewrite());
    out.write("new");
    out.commit();
  }
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(test::read_file(path) == "new");
  REQUIRE(::lstat((dir + "/link.txt").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(temporaries(dir) == 0);
}

TEST_CASE("issue 11 – devices and descriptors are written directly and cannot be rewritten") {
  OutputFile null("/dev/null");
  CHECK_FALSE(null.can_rewrite());
  CHECK(embedpe::temporaries_in_progress() == 0);
  null.write("x");
  CHECK_THROWS_AS(null.rewrite(0, "y"), embedpe::UsageError);
  null.commit();
  struct stat st;
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("issue 11 – an output that is an input is refused, through hard links and symbolic links") {
  const std::string dir = test::temp_dir("output_file_inputs");
  const std::string input = dir + "/table.npy";
  {
    OutputFile out(input);
    out.write("data");
    out.commit();
  }
  REQUIRE(::link(input.c_str(), (dir + "/hard.npy").c_str()) == 0);
  REQUIRE(::symlink("table.npy", (dir + "/soft.npy").c_str()) == 0);
  for (const std::string& output : {input, dir + "/hard.npy", dir + "/soft.npy", dir + "/./table.npy"}) {
    CHECK_THROWS_WITH_AS(embedpe::refuse_output_over_inputs(output, {{"--weights", input}}),
                         doctest::Contains("is the same file as --weights"), embedpe::UsageError);
  }
  CHECK_NOTHROW(embedpe::refuse_output_over_inputs(dir + "/other.npy", {{"--weights", input}}));
  CHECK_NOTHROW(embedpe::refuse_output_over_inputs(input, {{"--weights", dir + "/missing.npy"}, {"--model", ""}}));
}

TEST_CASE("issue 46 – an encode run's inputs: each input, the model, the layer's files; tensor names dropped") {
  const std::string dir = test::temp_dir("output_file_encode_inputs");
  const std::string corpus = dir + "/corpus.txt";
  const std::string table = dir + "/w.safetensors";
  std::ofstream(corpus) << "a\n";
  std::ofstream(table) << "x";
  embedpe::TextSpec text;
  text.inputs = {corpus};
  embedpe::LayerSpec layer;
  layer.table.weights = table + ":emb";
  const std::vector<std::pair<std::string, std::string>> inputs = embedpe::encode_inputs(text, "m.model", layer);
  const std::vector<std::pair<std::string, std::string>> want{
      {"input", corpus}, {"model", "m.model"}, {"weights", table + ":emb"}};
  CHECK(inputs == want);
  CHECK_THROWS_WITH_AS(embedpe::refuse_outputs_over_inputs({dir + "/out.npz", table}, inputs),
                       ("the output " + table + " is the same file as weights " + table +
                        "; writing it would destroy the input: choose another output")
                           .c_str(),
                       embedpe::UsageError);
  CHECK_NOTHROW(embedpe::refuse_outputs_over_inputs({dir + "/out.npz"}, inputs));
}

TEST_CASE("issue 28 – a file read as an input is never written, whichever is opened first") {
  const std::string dir = test::temp_dir("output_file_noted_inputs");
  const std::string input = dir + "/corpus.jsonl";
  std::ofstream(input) << "{\"text\":\"a\"}\n";
  REQUIRE(::symlink("corpus.jsonl", (dir + "/link.jsonl").c_str()) == 0);
  const auto read_it = [&] {
    const int fd = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    try {
      embedpe::note_input(fd, input);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
  };
  SUBCASE("the output opened after the input was read") {
    read_it();
    for (const std::string& output : {input, dir + "/link.jsonl", dir + "/./corpus.jsonl"}) {
      CHECK_THROWS_WITH_AS(OutputFile{output}, doctest::Contains("is the same file as the input"),
                           embedpe::UsageError);
    }
    CHECK_THROWS_AS(embedpe::refuse_replacing_input(input), embedpe::UsageError);
  }
  SUBCASE("the input read while the output is open") {
    OutputFile out(dir + "/link.jsonl");
    out.write("x");
    CHECK_THROWS_WITH_AS(read_it(), doctest::Contains("is the same file as the input"), embedpe::UsageError);
  }
  SUBCASE("the output's target became the input after it was opened") {
    OutputFile out(dir + "/later.jsonl");
    out.write("x");
    read_it();
    REQUIRE(::link(input.c_str(), (dir + "/later.jsonl").c_str()) == 0);
    CHECK_THROWS_WITH_AS(out.commit(), doctest::Contains("is the same file as the input"), embedpe::UsageError);
  }
  std::ifstream in(input);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "{\"text\":\"a\"}\n");
}

TEST_CASE("an OutputDirectory appears whole on commit, and nothing of it stays otherwise") {
  const std::string parent = test::temp_path("outdir_parent");
  ::mkdir(parent.c_str(), 0777);
  const std::string target = parent + "/joined";
  // Files as a join makes them (no fsync each: commit() syncs them all).
  auto fill = [](const std::string& dir, int n = 3) {
    for (int i = 0; i < n; ++i) std::ofstream(dir + "/part-" + std::to_string(i)) << "x";
  };
  SUBCASE("commit renames it into place") {
    {
      embedpe::OutputDirectory d(target);
      CHECK_FALSE(exists(target));
      fill(d.temp_path());
      d.commit();
    }
    CHECK(exists(target + "/part-2"));
    CHECK(temporaries(parent) == 0);
    CHECK_THROWS_WITH_AS(embedpe::OutputDirectory{target}, doctest::Contains("is not empty"), embedpe::UsageError);
  }
  SUBCASE("an error midway removes it") {
    {
      embedpe::OutputDirectory d(target);
      fill(d.temp_path());
    }
    CHECK_FALSE(exists(target));
    CHECK(temporaries(parent) == 0);
  }
  SUBCASE("what the signal handlers call removes it and its files") {
    embedpe::OutputDirectory d(target);
    fill(d.temp_path(), 1500);  // more entries than one getdents64 buffer (16 KiB, ~500 names) holds
    CHECK(embedpe::temporaries_in_progress() == 1);
    CHECK(temporaries(parent) == 1);
    CHECK(entries(d.temp_path()) == 1500);
    embedpe::remove_temporaries();
    CHECK(temporaries(parent) == 0);
    // temp_path() reaches the directory through the descriptor the run holds
    // (/proc/self/fd/N), so it names the removed directory still: empty now.
    CHECK(entries(d.temp_path()) == 0);
  }
  SUBCASE("an empty directory is replaced; a symbolic link is refused") {
    ::mkdir(target.c_str(), 0777);
    {
      embedpe::OutputDirectory d(target);
      fill(d.temp_path());
      d.commit();
    }
    CHECK(exists(target + "/part-0"));
    const std::string link = parent + "/link";
    REQUIRE(::symlink("nowhere", link.c_str()) == 0);
    CHECK_THROWS_WITH_AS(embedpe::OutputDirectory{link}, doctest::Contains("symbolic link"), embedpe::UsageError);
    ::unlink(link.c_str());
  }
  std::system(("rm -rf '" + parent + "'").c_str());
}

namespace {
// set_no_clobber(true) for one test case, whatever it throws.
struct NoClobber {
  NoClobber() { embedpe::set_no_clobber(true); }
  ~NoClobber() { embedpe::set_no_clobber(false); }
};
}  // namespace

TEST_CASE("issue 31 – with no_clobber an OutputFile refuses what exists, and keeps a file that appears before commit") {
  const std::string dir = test::temp_dir("output_file_no_clobber");
  const std::string path = dir + "/out.txt";
  NoClobber on;
  SUBCASE("a new file is written as usual") {
    OutputFile out(path);
    out.write("new");
    out.commit();
    CHECK(test::read_file(path) == "new");
  }
  SUBCASE("an existing file, a symbolic link to one and a dangling link are refused, untouched") {
    std::ofstream(path) << "old";
    const std::string link = dir + "/link", dangling = dir + "/dangling";
    REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
    REQUIRE(::symlink((dir + "/nowhere").c_str(), dangling.c_str()) == 0);
    for (const std::string& p : {path, link, dangling, dir}) {
      CAPTURE(p);
      CHECK_THROWS_WITH_AS(OutputFile{p}, doctest::Contains((p + " already exists, and no_clobber keeps it").c_str()),
                           embedpe::UsageError);
    }
    CHECK(test::read_file(path) == "old");
    CHECK_FALSE(exists(dir + "/nowhere"));
    CHECK(temporaries(dir) == 0);
  }
  SUBCASE("a file that appears while the output is written is kept, and the temporary removed") {
    {
      OutputFile out(path);
      out.write("ours");
      std::ofstream(path) << "theirs";  // another run got there first
      CHECK_THROWS_WITH_AS(out.commit(), doctest::Contains((path + " appeared while this run wrote it").c_str()),
                           embedpe::UsageError);
    }
    CHECK(test::read_file(path) == "theirs");
    CHECK(temporaries(dir) == 0);
  }
  SUBCASE("a dangling symbolic link that appears is not followed or replaced") {
    const std::string link_target = dir + "/elsewhere";
    {
      OutputFile out(path);
      out.write("ours");
      REQUIRE(::symlink(link_target.c_str(), path.c_str()) == 0);
      CHECK_THROWS_AS(out.commit(), embedpe::UsageError);
    }
    struct stat st;
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK_FALSE(exists(link_target));
    CHECK(temporaries(dir) == 0);
  }
  SUBCASE("devices and standard output are written, not refused") {
    OutputFile null("/dev/null");
    null.write("x");
    null.commit();
    OutputFile out("-");
    out.commit();
  }
  SUBCASE("a file a run owns (Existing::replaced) is replaced whatever the setting") {
    std::ofstream(path) << "old";
    OutputFile out(path, path, embedpe::Existing::replaced);
    out.write("new");
    out.commit();
    CHECK(test::read_file(path) == "new");
  }
  SUBCASE("refuse_existing_output says the same before any work, and nothing without the setting") {
    std::ofstream(path) << "old";
    CHECK_THROWS_WITH_AS(embedpe::refuse_existing_output(path, "output_path"),
                         doctest::Contains(("output_path " + path + " already exists").c_str()), embedpe::UsageError);
    CHECK_NOTHROW(embedpe::refuse_existing_output("-"));
    CHECK_NOTHROW(embedpe::refuse_existing_output("/dev/null"));
    CHECK_NOTHROW(embedpe::refuse_existing_output(dir + "/new"));
    embedpe::set_no_clobber(false);
    CHECK_NOTHROW(embedpe::refuse_existing_output(path));
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("issue 31 – with no_clobber an OutputDirectory refuses any existing entry, and one that appears before commit") {
  const std::string parent = test::temp_path("outdir_no_clobber");
  ::mkdir(parent.c_str(), 0777);
  const std::string target = parent + "/joined";
  NoClobber on;
  SUBCASE("an empty directory, a file and a dangling link are refused") {
    ::mkdir(target.c_str(), 0777);
    const std::string file = parent + "/file", dangling = parent + "/dangling";
    std::ofstream(file) << "x";
    REQUIRE(::symlink("nowhere", dangling.c_str()) == 0);
    for (const std::string& p : {target, file, dangling}) {
      CAPTURE(p);
      CHECK_THROWS_WITH_AS(embedpe::OutputDirectory{p}, doctest::Contains((p + " already exists, and no_clobber").c_str()),
                           embedpe::UsageError);
    }
    CHECK(entries(target) == 0);
  }
  SUBCASE("a new directory is made as usual") {
    {
      embedpe::OutputDirectory d(target);
      std::ofstream(d.temp_path() + "/part-0") << "x";
      d.commit();
    }
    CHECK(exists(target + "/part-0"));
  }
  SUBCASE("an empty directory that appears before commit is kept, and the temporary removed") {
    {
      embedpe::OutputDirectory d(target);
      std::ofstream(d.temp_path() + "/part-0") << "x";
      ::mkdir(target.c_str(), 0777);
      CHECK_THROWS_WITH_AS(d.commit(), doctest::Contains((target + " appeared while this run wrote it").c_str()),
                           embedpe::UsageError);
    }
    CHECK(entries(target) == 0);
    CHECK(temporaries(parent) == 0);
  }
  std::system(("rm -rf '" + parent + "'").c_str());
}
