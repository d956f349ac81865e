"""Fails if a unittest class with tests would not run under CTest.

tests/CMakeLists.txt finds the classes of cli_test.py and reliability_test.py
by their names (`class XxxTests(`) and registers one CTest case per class;
faults_test.py runs as a whole module. This reads back what CTest actually
runs (`ctest --show-only=json-v1`) and compares it with the classes Python
finds in each module, so that a class named otherwise, or a module left out,
is an error here instead of tests that silently never run.

    check_test_classes.py CTEST BUILD_DIR MODULE...
"""
import importlib
import json
import subprocess
import sys
import unittest


def ctest_targets(ctest, build_dir):
    """The unittest names ("module" or "module.Class") each CTest case runs."""
    shown = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, check=True, capture_output=True,
                           text=True).stdout
    targets = {}
    for test in json.loads(shown)["tests"]:
        command = test.get("command", [])
        if "unittest" not in command:
            continue
        args = command[command.index("unittest") + 1:]
        for arg in args:
            if not arg.startswith("-"):
                targets[arg] = test["name"]
    return targets


def test_classes(module_name):
    """The TestCase classes defined in the module that hold at least one test."""
    module = importlib.import_module(module_name)
    loader = unittest.TestLoader()
    return sorted(name for name, obj in vars(module).items()
                  if isinstance(obj, type) and issubclass(obj, unittest.TestCase)
                  and obj.__module__ == module_name and loader.getTestCaseNames(obj))


def main():
    ctest, build_dir, *modules = sys.argv[1:]
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
        print(f"{name} has tests but no CTest case runs it: end its name in Tests "
              f"(tests/CMakeLists.txt registers each `class XxxTests(`)", file=sys.stderr)
    for name in stale:
        print(f"CTest case '{targets[name]}' runs {name}, which has no tests", file=sys.stderr)
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
