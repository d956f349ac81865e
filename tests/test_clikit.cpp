// clikit: the command line about itself, driven with a made-up program
// ("toy"), so that what it says is read off the definition it is given and
// names nothing of embedpe.
#include <doctest/doctest.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clikit/respell.h"
#include "clikit/usage.h"
#include "clikit/values.h"

namespace {

// The line main() would print for `args` given to `app`, or "" when they parse.
std::string error_line(CLI::App& app, const std::vector<std::string>& args) {
  if (auto line = clikit::unknown_option_line(app, args)) return *line;
  try {
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
  } catch (const CLI::ParseError& e) {
    return clikit::parse_error_line(app, args, e);
  }
  return "";
}

struct Toy {
  CLI::App app{"toy — a program that exists for this test"};
  std::size_t count = 3;
  std::optional<double> rate;
  int mode = 0;
  std::string path;
  std::string printed;

  Toy() {
    app.name("toy");
    app.set_version_flag("--version", "toy 1.0", "Print the version");
    app.require_subcommand(1);
    app.formatter(clikit::help_formatter({"Input", "Output"}));
    auto* run = app.add_subcommand("run", "Run the toy");
    clikit::option_group(*run, "Output");  // listed after Input, though added first
    clikit::add_number(*run, "--count", count, 1, 10, "How many");
    clikit::add_choice<int>(*run, "--mode", [this](int m) { mode = m; }, {{"fast", 1}, {"slow", 2}}, "How");
    clikit::option_group(*run, "Input");
    run->add_option("--path", path, "Where from")->type_name("PATH")->check(clikit::non_empty_path());
    clikit::add_number(*run, "--rate", rate, 0.0, 1.0, "How often", /*hi_open=*/true);
    clikit::set_examples(*run, {"toy run --count 2"});
    app.add_subcommand("stop", "Stop the toy");
    clikit::setup_usage(app, {.version = "1.0", .summary = "a toy", .notes = "", .see_also = {"true (1)"}},
                        [this](const std::string& text) { printed = text; });
  }

  // The line main() would print for `args`, or "" when they parse.
  std::string error(const std::vector<std::string>& args) { return error_line(app, args); }
};

}  // namespace

TEST_CASE("numbers: within the range, whole, finite and signed only where allowed") {
  const clikit::NumberRange<std::size_t> r{1, 10};
  CHECK(clikit::try_parse_number("7", r) == 7u);
  CHECK(clikit::try_parse_number("+7", r) == 7u);
  for (const char* bad : {"", "0", "11", "-1", "7x", " 7", "1e1", "18446744073709551617", "++7"}) {
    CHECK_MESSAGE(!clikit::try_parse_number(bad, r), bad);
  }
  const clikit::NumberRange<double> open{0.0, 1.0, true};
  CHECK(clikit::try_parse_number("0.5", open) == 0.5);
  for (const char* bad : {"1", "nan", "inf", "0x0.1", "1e999", "-0.1"}) CHECK_MESSAGE(!clikit::try_parse_number(bad, open), bad);
  CHECK(clikit::range_text(open) == "a number from 0 up to (not including) 1");
  CHECK(clikit::echo_value(std::string(40, '9')) == std::string(24, '9') + "... (40 characters)");
}

TEST_CASE("spans and formats by extension") {
  const clikit::Span s = clikit::parse_span("--dims", "2:5", 8);
  CHECK(s.first == 2);
  CHECK(s.count == 3);
  CHECK_THROWS_AS(clikit::parse_span("--dims", "5:2", 8), CLI::ValidationError);
  CHECK_THROWS_AS(clikit::parse_span("--dims", "2:9", 8), CLI::ValidationError);
  const std::vector<std::pair<std::string, int>> formats = {{".a", 1}, {".b", 2}};
  CHECK(clikit::format_from_extension("dir.x/out.B", formats) == 2);
  CHECK(!clikit::format_from_extension("dir.x/out", formats));
  CHECK(!clikit::format_from_extension("-", formats));
  CHECK_THROWS_WITH_AS(clikit::format_from_extension("out.c", formats),
                       "cannot tell the format of out.c from its extension '.c'; name it .a, .b, or give --format",
                       clikit::UsageError);
  const std::vector<std::pair<std::string, std::string>> names = {{".a", "a"}, {".b", "b"}};
  CHECK_NOTHROW(clikit::refuse_contradicting_extension("out.a", "a", names));
  CHECK_NOTHROW(clikit::refuse_contradicting_extension("out.txt", "a", names));
  CHECK_THROWS_AS(clikit::refuse_contradicting_extension("out.b", "a", names), clikit::UsageError);
}

TEST_CASE("add_span: A:B into an optional span, its placeholder A:B; a bad one names the flag") {
  CLI::App app{"spans"};
  app.name("spans");
  CLI::App* run = app.add_subcommand("run", "Run");
  std::optional<clikit::Span> dims;
  CHECK(clikit::add_span(*run, "--dims", dims, 8, "Dimensions")->get_type_name() == "A:B");
  CHECK(error_line(app, {"run", "--dims", "2:5"}) == "");
  REQUIRE(dims);
  CHECK(dims->first == 2);
  CHECK(dims->count == 3);
  const std::string bad = error_line(app, {"run", "--dims", "5:2"});
  INFO(bad);
  CHECK(bad.find("--dims: expected A:B with whole numbers 0 <= A < B <= 8") != std::string::npos);
}

TEST_CASE("command_line: each parameter as its flag, values quoted only where a shell needs it") {
  CHECK(clikit::command_line({{"d_model", "768"}, {"layernorm", ""}, {"weights", "my dir/it's.npy"}},
                             clikit::kebab_flag) == "--d-model 768 --layernorm --weights 'my dir/it'\\''s.npy'");
  CHECK(clikit::command_line({{"pe", "learned"}, {"scale", ""}}, [](std::string_view p) {
          return "-" + std::string(p);
        }) == "-pe learned -scale");
  CHECK(clikit::command_line({{"field", ""}}, clikit::kebab_flag) == "--field");
  CHECK(clikit::command_line({{"text", "a\"b"}}, clikit::kebab_flag) == "--text 'a\"b'");
}

TEST_CASE("values reach the options, and bad ones are one line naming the flag") {
  Toy toy;
  CHECK(toy.error({"run", "--count", "4", "--mode", "slow", "--rate", "0.25", "--path", "p"}) == "");
  CHECK(toy.count == 4);
  CHECK(toy.mode == 2);
  CHECK(toy.rate == 0.25);
  CHECK(Toy().error({"run", "--count", "11"}) ==
        "toy run: --count: expected a whole number from 1 to 10, not '11' (see 'toy run --help')");
  CHECK(Toy().error({"run", "--mode", "quick"}) ==
        "toy run: --mode: must be one of fast|slow, not 'quick' (see 'toy run --help')");
  CHECK(Toy().error({"run", "--path", ""}) == "toy run: --path: needs a path, not an empty value (see 'toy run --help')");
}

TEST_CASE("typos get the nearest name, in the program's own words") {
  CHECK(clikit::nearest("--cuont", {"--count", "--mode"}) == "--count");
  CHECK(clikit::nearest("--co", {"--count"}) == "--count");  // a prefix is as likely as a typo
  CHECK(clikit::nearest("--x", {"--count"}) == "");
  CHECK(clikit::nearest("--zzzzzz", {"--count"}) == "");
  // A hyphen, an underscore or a letter's case is a slip, cheaper than a letter.
  const std::vector<std::string> names{"--model", "--d-model", "--seed", "--seq-len"};
  CHECK(clikit::nearest("--dmodel", names) == "--d-model");
  CHECK(clikit::nearest("--d_model", names) == "--d-model");
  CHECK(clikit::nearest("--D-Model", names) == "--d-model");
  CHECK(clikit::nearest("-d-model", names) == "--d-model");
  CHECK(clikit::nearest("--seqlen", names) == "--seq-len");
  CHECK(clikit::nearest("--mdoel", names) == "--model");
  CHECK(Toy().error({"rnu"}) == "toy: unknown command 'rnu'; did you mean 'run'? (see 'toy --help')");
  CHECK(Toy().error({"run", "--cuont", "2"}) ==
        "toy run: unknown option '--cuont'; did you mean '--count'? (see 'toy run --help')");
  CHECK(Toy().error({"--count"}) ==
        "toy: unknown option '--count'; options come after a command, e.g. 'toy run --count' (see 'toy --help')");
  CHECK(Toy().error({"run", "--version"}) == "toy run: unknown option '--version'; the version is 'toy --version'");
  CHECK(Toy().error({}) == "toy: give a command: run, stop, help, completion (see 'toy --help')");
  Toy toy;
  CHECK(clikit::expand_help(toy.app, {"help", "run"}) == std::vector<std::string>{"run", "--help"});
  CHECK_THROWS_AS(clikit::expand_help(toy.app, {"help", "run", "stop"}), clikit::UsageError);
}

TEST_CASE("help lists the groups in the given order, with placeholders, defaults and examples") {
  Toy toy;
  const std::string help = toy.app.get_subcommand("run")->help();
  const auto input = help.find("\nInput:\n"), output = help.find("\nOutput:\n"), options = help.find("\nOptions:\n");
  REQUIRE(input != std::string::npos);
  REQUIRE(output != std::string::npos);
  REQUIRE(options != std::string::npos);
  CHECK(input < output);
  CHECK(output < options);
  CHECK(help.find("--path PATH") != std::string::npos);
  CHECK(help.find("--mode fast|slow") != std::string::npos);
  CHECK(help.find("How many (default: 3)") != std::string::npos);
  CHECK_MESSAGE(help.ends_with("\nExamples:\n  toy run --count 2\n\n"), help);
}

TEST_CASE("help and completion come with examples in the program's name") {
  Toy toy;
  const std::string help = toy.app.get_subcommand("help")->help();
  CHECK_MESSAGE(help.ends_with("\nExamples:\n  toy help\n  toy help run\n\n"), help);
  const std::string completion = toy.app.get_subcommand("completion")->help();
  CHECK_MESSAGE(completion.find("  toy completion zsh > \"${fpath[1]}/_toy\"\n") != std::string::npos, completion);
  CHECK(completion.find("  toy completion fish > ~/.config/fish/completions/toy.fish\n") != std::string::npos);
}

TEST_CASE("completions and the man page are read off the definition") {
  Toy toy;
  toy.error({"completion", "bash"});
  CHECK(toy.printed.find("complete -o filenames -o bashdefault -F _toy toy") != std::string::npos);
  CHECK(toy.printed.find("--mode) COMPREPLY=($(compgen -W 'fast slow' -- \"$cur\")); return ;;") != std::string::npos);
  CHECK(toy.printed.find("--path) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;") != std::string::npos);
  CHECK(toy.printed.find("'run stop help completion --help --version'") != std::string::npos);
  Toy zsh;
  zsh.error({"completion", "zsh"});
  CHECK(zsh.printed.starts_with("#compdef toy\n"));
  CHECK(zsh.printed.find("'--mode[How]:fast|slow:(fast slow)'") != std::string::npos);
  Toy fish;
  fish.error({"completion", "fish"});
  CHECK(fish.printed.find("complete -c toy -n '__fish_seen_subcommand_from run' -l mode -x -a 'fast slow' -d 'How'") !=
        std::string::npos);
  Toy man;
  man.error({"manpage"});
  CHECK(man.printed.starts_with(".TH TOY 1 \"\" \"toy 1.0\" \"User Commands\"\n.SH NAME\ntoy \\- a toy\n"));
  CHECK(man.printed.find(".SS \"toy run\"\nRun the toy\n") != std::string::npos);
  CHECK(man.printed.find(".B \\-\\-count \" \\fIN\\fR\"\nHow many (default: 3)\n") != std::string::npos);
  CHECK(man.printed.find(".nf\ntoy run \\-\\-count 2\n.fi\n") != std::string::npos);
  CHECK(man.printed.ends_with(".SH SEE ALSO\n.BR true (1)\n"));
  CHECK(man.printed.find("manpage") == std::string::npos);  // hidden
}

namespace {

// run() on `args` (argv[0] added): its status, what it printed, what it
// wrote on standard error, and what on_error saw.
struct Ran {
  int status = -1;
  std::string printed, stderr_text, error;
};

Ran run_toy(Toy& toy, std::vector<std::string> args, const std::function<void()>& command = {}) {
  if (command) toy.app.get_subcommand("stop")->callback(command);
  args.insert(args.begin(), "toy");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  Ran r;
  std::ostringstream err;
  auto* old = std::cerr.rdbuf(err.rdbuf());
  r.status = clikit::run(
      toy.app, static_cast<int>(argv.size()), argv.data(), [&](const std::string& text) { r.printed += text; },
      [&](std::exception_ptr e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& x) {
          r.error = x.what();
        }
        return 7;
      });
  std::cerr.rdbuf(old);
  r.stderr_text = err.str();
  return r;
}

}  // namespace

TEST_CASE("run: parse, the command, and every way it ends as one line and a status") {
  Toy ok;
  const Ran parsed = run_toy(ok, {"run", "--count", "4"});
  CHECK(parsed.status == 0);
  CHECK(ok.count == 4);
  CHECK(parsed.stderr_text == "");
  Toy empty;  // "--path=" is --path with an empty value, refused, not --path taking the next argument
  const Ran assigned = run_toy(empty, {"run", "--path=", "--count", "2"});
  CHECK(assigned.status == 2);
  CHECK(assigned.stderr_text == "toy run: --path: needs a path, not an empty value (see 'toy run --help')\n");
  Toy help;
  const Ran helped = run_toy(help, {"help", "run"});
  CHECK(helped.status == 0);
  CHECK(helped.printed.find("--count N") != std::string::npos);
  Toy version;
  CHECK(run_toy(version, {"--version"}).printed == "toy 1.0\n");
  Toy typo;
  const Ran typoed = run_toy(typo, {"run", "--cuont", "2"});
  CHECK(typoed.status == 2);
  CHECK(typoed.stderr_text.find("did you mean '--count'?") != std::string::npos);
  Toy usage;  // a clikit::UsageError from a command: the program's name, status 2
  const Ran refused = run_toy(usage, {"stop"}, [] { throw clikit::UsageError("no\nway\x1b[31m"); });
  CHECK(refused.status == 2);
  CHECK(refused.stderr_text == "toy: no\\nway\\x1b[31m\n");  // one line: control bytes spelled out
  Toy other;  // anything else goes to on_error, which gives the status
  const Ran failed = run_toy(other, {"stop"}, [] { throw std::runtime_error("disk full"); });
  CHECK(failed.status == 7);
  CHECK(failed.error == "disk full");
  CHECK(failed.stderr_text == "");
  Toy print_fails;  // a failed write of help text is the program's error too
  std::string arg0 = "toy", arg1 = "--help";
  char* argv[] = {arg0.data(), arg1.data()};
  std::string seen;
  const int status = clikit::run(
      print_fails.app, 2, argv, [](const std::string&) { throw std::runtime_error("broken pipe"); },
      [&](std::exception_ptr e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& x) {
          seen = x.what();
        }
        return 141;
      });
  CHECK(status == 141);
  CHECK(seen == "broken pipe");
}

TEST_CASE("parse_part: K/N with 1 <= K <= N <= hi, else one line naming the flag") {
  const clikit::Part p = clikit::parse_part("--shard", "3/8", 100);
  CHECK(p.index == 3);
  CHECK(p.count == 8);
  for (const char* bad : {"0/3", "4/3", "3", "/3", "3/", "1/101", "-1/3", "1/3/5", "a/b", "", "1/2x",
                          "1/99999999999999999999999"}) {
    try {
      clikit::parse_part("--shard", bad, 100);
      FAIL("accepted " << bad);
    } catch (const CLI::ValidationError& e) {
      CHECK(std::string(e.what()) ==
            "--shard: expected K/N with whole numbers 1 <= K <= N <= 100, not '" + clikit::echo_value(bad) + "'");
    }
  }
}

TEST_CASE("add_word_or_number: a word or a number in range, kept as given") {
  CLI::App app;
  std::string scale = "sqrt";
  clikit::add_word_or_number(app, "--scale", scale, {"sqrt", "none"}, {-1e6, 1e6}, "Scale");
  app.parse(std::vector<std::string>{"none", "--scale"});  // CLI11 takes them last first
  CHECK(scale == "none");
  app.parse(std::vector<std::string>{"0.5", "--scale"});
  CHECK(scale == "0.5");
  CHECK(app.help().find("--scale sqrt|none|X") != std::string::npos);
  const std::string huge = "1" + std::string(308, '0');
  for (const std::string bad : {"2e6", "nan", "inf", "2x", "1e7", "-1e7", "", "sqrtx", huge.c_str()}) {
    CAPTURE(bad);
    try {
      app.parse(std::vector<std::string>{bad, "--scale"});
      FAIL("accepted " << bad);
    } catch (const CLI::ValidationError& e) {
      CHECK(std::string(e.what()) ==
            "--scale: expected sqrt, none or a number from -1e+06 to 1e+06, not '" + clikit::echo_value(bad) + "'");
    }
  }
  CHECK(scale == "0.5");  // a refused value leaves the last one
  // issue 28 - a number that underflows or overflows is said to, not called
  // "not a number from -1e6 to 1e6" (1e-400 is one).
  for (const char* tiny : {"1e-400", "-1e-400", "1e-310", "0.1e-320"}) {
    CAPTURE(tiny);
    try {
      app.parse(std::vector<std::string>{tiny, "--scale"});
      FAIL("accepted " << tiny);
    } catch (const CLI::ValidationError& e) {
      CHECK(std::string(e.what()) == "--scale: '" + std::string(tiny) +
                                         "' underflows: it is not 0, but smaller in magnitude than the smallest normal "
                                         "double (2.22507e-308); write 0 for zero; expected sqrt, none or a number "
                                         "from -1e+06 to 1e+06");
    }
  }
  try {
    app.parse(std::vector<std::string>{"-1e999", "--scale"});
    FAIL("accepted -1e999");
  } catch (const CLI::ValidationError& e) {
    CHECK(std::string(e.what()) == "--scale: '-1e999' overflows: it is larger in magnitude than any double "
                                   "(1.79769e+308); expected sqrt, none or a number from -1e+06 to 1e+06");
  }
  app.parse(std::vector<std::string>{"0e-999", "--scale"});  // zero, written oddly, is zero
  CHECK(scale == "0e-999");
}

TEST_CASE("issue 28 - numbers that underflow or overflow their type are refused as such") {
  CHECK(clikit::number_out_of_reach<double>("1e-400")->starts_with("underflows"));
  CHECK(clikit::number_out_of_reach<double>("1e999")->starts_with("overflows"));
  CHECK(clikit::number_out_of_reach<float>("1e-40")->starts_with("underflows"));  // a double, not a float
  CHECK(clikit::number_out_of_reach<float>("1e39")->starts_with("overflows"));
  for (const char* fine : {"0", "-0.0", "0e-999", "1e-300", "1e300", "inf", "nan", "abc", " 1e-400", "0x1p-2000"}) {
    CHECK_MESSAGE(!clikit::number_out_of_reach<double>(fine), fine);
  }
  CHECK(!clikit::number_out_of_reach<int>("1e-400"));
  const clikit::NumberRange<float> r{0.0f, 1.0f};
  CHECK(!clikit::try_parse_number("1e-40", r));  // would be a subnormal float that lost its digits
  CHECK(std::string(clikit::number_error("--p", "1e-40", r).what()) ==
        "--p: '1e-40' underflows: it is not 0, but smaller in magnitude than the smallest normal float "
        "(1.17549e-38); write 0 for zero; expected a number from 0 to 1");
  CHECK(std::string(clikit::number_error("--p", "2", r).what()) == "--p: expected a number from 0 to 1, not '2'");
}

TEST_CASE("issue 28 - printable_line spells out what a terminal would not show") {
  CHECK(clikit::printable_line("plain ascii, 你好, é") == "plain ascii, 你好, é");
  CHECK(clikit::printable_line("a\nb\x1b[2Jc\x7f") == "a\\nb\\x1b[2Jc\\x7f");
  CHECK(clikit::printable_line("not '\xEF\xBB\xBF" "12'") == "not '<U+FEFF>12'");  // a byte order mark
  CHECK(clikit::printable_line("\xC2\x9B" "31m") == "<U+009B>31m");             // C1 CSI
  CHECK(clikit::printable_line("x\xE2\x80\xAE" "cba\xE2\x80\xAC\xE2\x80\x8B\xE2\x80\xA8") ==
        "x<U+202E>cba<U+202C><U+200B><U+2028>");
  CHECK(clikit::printable_line("\xFF\xC3(\xED\xA0\x80\xF0\x9F\x98") == "\\xff\\xc3(\\xed\\xa0\\x80\\xf0\\x9f\\x98");
  CHECK(clikit::printable_line("\xF0\x9F\x98\x80") == "\xF0\x9F\x98\x80");  // an emoji is shown
  CHECK(clikit::echo_value(std::string(23, 'a') + "\xC3\xA9" + "zz") == std::string(23, 'a') + "... (27 characters)");
}

namespace {

// One numeric flag, added as a command adds it: clikit::add_number on a
// target of type T. tests/matrix/numbers.py runs a few of these ways end to
// end, one row per flag of the real commands; here every way, per kind of range.
template <class T>
struct NumberFlag {
  CLI::App app{"toy"};
  T target{};

  NumberFlag(T lo, T hi, bool hi_open = false) {
    app.name("toy");
    app.require_subcommand(1);
    auto* run = app.add_subcommand("run", "Run the toy");
    clikit::add_number(*run, "--n", target, lo, hi, "The number", hi_open);
  }

  // The line main() would print for `run ARGS...`, or "" when they parse.
  std::string error(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    return error_line(app, args);
  }
};

const std::string kHuge = "1" + std::string(308, '0');  // 1e308: 309 digits

// The values every numeric flag refuses, whatever its range: name -> value.
std::vector<std::pair<std::string, std::string>> always_bad() {
  return {{"non-numeric", "abc"}, {"overflow", "99999999999999999999999"}, {"309 digits", kHuge},
          {"trailing junk", "5x"}, {"space", " 5"}, {"hex", "0x10"}, {"empty argument", ""}, {"negative", "-1"}};
}

// Checks that `flag` refuses each of `values`, given as --n=V (and as --n V
// for the empty argument: "--n=" with nothing after '=' is a missing value),
// with the one line naming the flag, its range and the value as typed (cut
// when long); that it needs a value; and that "-3" in its own argument is a
// value refused, never an option.
template <class T>
void check_refuses(T lo, T hi, bool hi_open, std::vector<std::pair<std::string, std::string>> values) {
  const std::string range = clikit::range_text(clikit::NumberRange<T>{lo, hi, hi_open});
  auto line = [&](const std::string& v) {
    // A number beyond the type's reach says so, with the range (issue 28).
    if (auto why = clikit::number_out_of_reach<T>(v)) {
      return "toy run: --n: '" + v + "' " + *why + "; expected " + range + " (see 'toy run --help')";
    }
    return "toy run: --n: expected " + range + ", not '" + clikit::echo_value(v) + "' (see 'toy run --help')";
  };
  for (const auto& row : values) {  // not a structured binding: clang 14's CAPTURE cannot capture one
    const auto& what = row.first;
    const auto& value = row.second;
    CAPTURE(what);
    CAPTURE(value);
    NumberFlag<T> flag(lo, hi, hi_open);
    const auto args = what == "empty argument" ? std::vector<std::string>{"--n", value}
                                               : std::vector<std::string>{"--n=" + value};
    CHECK(flag.error(args) == line(value));
  }
  CHECK(NumberFlag<T>(lo, hi, hi_open).error({"--n"}).starts_with("toy run: --n: needs a value"));
  CHECK(NumberFlag<T>(lo, hi, hi_open).error({"--n", "-3"}) == line("-3"));
}

}  // namespace

TEST_CASE("numbers: every numeric flag refuses every bad value with one line naming it and its range") {
  // The kinds of range embedpe's flags have (tests/matrix/numbers.py FLAGS).
  SUBCASE("whole numbers from 1") {
    auto bad = always_bad();
    bad.insert(bad.end(), {{"above", "2147483648"}, {"fraction", "1.5"}, {"double sign", "+-1"}, {"below", "0"}});
    check_refuses<std::size_t>(1, 2147483647, false, bad);
    NumberFlag<std::size_t> ok(1, 2147483647);
    CHECK(ok.error({"--n", "2147483647"}) == "");
    CHECK(ok.target == 2147483647u);
  }
  SUBCASE("whole numbers from 0 to 2^53 - 1 (positions)") {
    auto bad = always_bad();
    bad.insert(bad.end(), {{"above", "9007199254740992"}, {"fraction", "1.5"}, {"double sign", "+-1"}});
    check_refuses<std::size_t>(0, (std::size_t{1} << 53) - 1, false, bad);
    NumberFlag<std::size_t> ok(0, (std::size_t{1} << 53) - 1);
    CHECK(ok.error({"--n=0"}) == "");
    CHECK(ok.target == 0u);
  }
  SUBCASE("whole numbers up to 2^64 - 1 (seeds, byte counts)") {
    auto bad = always_bad();
    bad.insert(bad.end(), {{"above", "18446744073709551616"}, {"fraction", "1.5"}, {"double sign", "+-1"}});
    check_refuses<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max(), false, bad);
    NumberFlag<std::uint64_t> ok(0, std::numeric_limits<std::uint64_t>::max());
    CHECK(ok.error({"--n", "18446744073709551615"}) == "");
    CHECK(ok.target == std::numeric_limits<std::uint64_t>::max());
  }
  SUBCASE("signed whole numbers from 0 (ids)") {
    auto bad = always_bad();
    bad.insert(bad.end(), {{"above", "2147483648"}, {"fraction", "1.5"}, {"double sign", "+-1"}});
    check_refuses<int>(0, 2147483647, false, bad);
  }
  SUBCASE("numbers in a closed range") {
    auto bad = always_bad();
    bad.insert(bad.end(), {{"nan", "nan"}, {"inf", "inf"}, {"minus inf", "-inf"}, {"above", "1e+13"},
                           {"1e999", "1e999"}, {"1e-400", "1e-400"}, {"below", "0.1001"}});
    check_refuses<double>(1.001, 1e12, false, bad);
    NumberFlag<double> ok(1.001, 1e12);
    CHECK(ok.error({"--n", "1e12"}) == "");
    CHECK(ok.target == 1e12);
    CHECK(ok.error({"--n=+2.5"}) == "");
    CHECK(ok.target == 2.5);
  }
  SUBCASE("numbers up to, not including, the top (probabilities)") {
    auto bad = always_bad();
    bad.insert(bad.end(), {{"nan", "nan"}, {"inf", "inf"}, {"minus inf", "-inf"}, {"above", "1"},
                           {"1e999", "1e999"}, {"1e-400", "1e-400"}});
    check_refuses<double>(0.0, 1.0, true, bad);
    NumberFlag<double> ok(0.0, 1.0, true);
    CHECK(ok.error({"--n", "0"}) == "");
    CHECK(ok.error({"--n", "0.999"}) == "");
    CHECK(ok.target == 0.999);
  }
}

TEST_CASE("spans: A:B with whole numbers 0 <= A < B <= hi, else one line quoting the value") {
  const std::uint64_t pos = std::uint64_t{1} << 53;
  const std::string huge = "0:" + kHuge;
  for (const std::string bad : {"10:5", "-5:10", "0:9007199254740993", "18446744073709551000:18446744073709551615",
                                "0:5x", "5", "3:3", huge.c_str()}) {
    CAPTURE(bad);
    try {
      clikit::parse_span("--positions", bad, pos);
      FAIL("accepted " << bad);
    } catch (const CLI::ValidationError& e) {
      CHECK(std::string(e.what()) ==
            "--positions: expected A:B with whole numbers 0 <= A < B <= 9007199254740992 (B excluded), not '" +
                clikit::echo_value(bad) + "'");
    }
  }
  const clikit::Span whole = clikit::parse_span("--positions", "0:9007199254740992", pos);
  CHECK(whole.first == 0);
  CHECK(whole.count == pos);
}
