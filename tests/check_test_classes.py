"""Fails if a unittest class with tests would not run under CTest.

tests/CMakeLists.txt finds the classes of the command-line test modules by
their names (`class XxxTests(`) and registers one CTest case per class;
faults_test.py runs as a whole module, and matrix_test.py once per module
of matrix/ (MATRIX=module: class Matrix_<module>). This reads back what
CTest actually runs (`ctest --show-only=json-v1`) and compares it with the
classes Python finds in every module of tests/ that defines a TestCase (found
here, not listed, so that a new module is checked too), so that a class
named otherwise, or a module left out, is an error here instead of tests
that silently never run.

    check_test_classes.py CTEST BUILD_DIR
"""
import importlib
import json
import pathlib
import subprocess
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
RUNNER = "run_unittest.py"


def ctest_targets(ctest, build_dir):
    """The unittest names ("module" or "module.Class") each CTest case runs
    through tests/run_unittest.py."""
    shown = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, check=True, capture_output=True,
                           text=True).stdout
    targets = {}
    for test in json.loads(shown)["tests"]:
        command = test.get("command", [])
        runner = [i for i, arg in enumerate(command) if arg == RUNNER or arg.endswith("/" + RUNNER)]
        if not runner:
            continue
        args = command[runner[0] + 1:]
        env = [v for p in test.get("properties", []) if p["name"] == "ENVIRONMENT" for v in p["value"]]
        matrix = [v.split("=", 1)[1] for v in env if v.startswith("MATRIX=")]
        for arg in args:
            if arg == "matrix_test" and matrix:
                # matrix_test.py with MATRIX=module runs that module's rows: class Matrix_<module>.
                targets[f"matrix_test.Matrix_{matrix[0]}"] = test["name"]
            elif not arg.startswith("-"):
                targets[arg] = test["name"]
    return targets


def test_classes(module_name):
    """The TestCase classes defined in the module that hold at least one test."""
    module = importlib.import_module(module_name)
    loader = unittest.TestLoader()
    return sorted(name for name, obj in vars(module).items()
                  if isinstance(obj, type) and issubclass(obj, unittest.TestCase)
                  and obj.__module__ == module_name and loader.getTestCaseNames(obj))


def test_modules():
    """Every module in tests/ that defines a unittest.TestCase class with tests (imported to see: a class may
    derive from another module's base, as padding_test's do from cli_test.CliCase)."""
    names = sorted(p.stem for p in HERE.glob("*.py") if p.name not in (RUNNER, pathlib.Path(__file__).name))
    return [name for name in names if test_classes(name)]


def main():
    ctest, build_dir = sys.argv[1:]
    modules = test_modules()
    if not modules:
        print(f"no test module found in {HERE}", file=sys.stderr)
        return 1
    targets = ctest_targets(ctest, build_dir)
    missing = []
    for module in modules:
        classes = test_classes(module)
        if module in targets:
            print(f"{module}: {len(classes)} classes, run whole by '{targets[module]}'")
            continue
        cases = [f"{module}.{c}" for c in classes if f"{module}.{c}" in targets]
        print(f"{module}: {len(classes)} classes with tests, {len(cases)} CTest cases")
        missing += [f"{module}.{c}" for c in classes if f"{module}.{c}" not in targets]
    stale = [t for t in targets if t.split(".")[0] in modules and t not in
             {f"{m}.{c}" for m in modules for c in test_classes(m)} | set(modules)]
    for name in missing:
        module = name.split(".")[0]
        if any(t.split(".")[0] == module for t in targets):
            print(f"{name} has tests but no CTest case runs it: end its name in Tests "
                  f"(tests/CMakeLists.txt registers each `class XxxTests(`)", file=sys.stderr)
        else:
            print(f"{name} has tests but no CTest case runs it: no case runs any of {module}.py; register the "
                  f"module in tests/CMakeLists.txt", file=sys.stderr)
    for name in stale:
        print(f"CTest case '{targets[name]}' runs {name}, which has no tests", file=sys.stderr)
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
