"""--output-dir and --resume: never mixes, never overwrites another run's
output; a tampered manifest is a clear error; parts are regular files."""
import hashlib
import json
import os
import pathlib
import subprocess

from matrix import ABSENT, EMBEDPE, PRESENT, UNCHANGED, Case

LINES = "".join(f"line {i} " + "word " * (i % 4) + "\n" for i in range(1, 8))  # 7 lines: 3 parts of 3, 3, 1
BASE = ["--d-model", "8", "--emit", "input_ids", "--shard-rows", "3"]


def encode(tmp, *args, corpus="corpus.txt"):
    r = subprocess.run([EMBEDPE, "encode", "--input", str(tmp / corpus), *BASE, "--output-dir", str(tmp / "dir"),
                        *args], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr


def finished_from_stdin(then=None):
    def setup(tmp):
        (tmp / "corpus.txt").write_text(LINES)
        with open(tmp / "corpus.txt", "rb") as f:
            r = subprocess.run([EMBEDPE, "encode", "--input", "-", *BASE, "--output-dir", str(tmp / "dir")],
                               stdin=f, capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
        if then:
            then(tmp)
    return setup


def finished(corpus=LINES, name="corpus.txt", then=None, args=()):
    """A complete run in {tmp}/dir over `corpus`, then `then(tmp)`."""
    def setup(tmp):
        (tmp / name).write_text(corpus)
        encode(tmp, *args, corpus=name)
        if then:
            then(tmp)
    return setup


def resume(*args, corpus="corpus.txt"):
    return ["encode", "--input", "{tmp}/" + corpus, *BASE, "--output-dir", "{tmp}/dir", "--resume", *args]


def complete_and_consistent(path):
    """The directory holds exactly a complete manifest's parts, each matching."""
    m = json.loads((path / "manifest.json").read_text())
    if not m["complete"]:
        return "manifest not complete"
    want = {p["file"] for p in m["parts"]}
    have = {f for f in os.listdir(path) if f.startswith("part-")}
    if want != have:
        return f"parts on disk {sorted(have)}, manifest {sorted(want)}"
    for p in m["parts"]:
        if hashlib.sha256((path / p["file"]).read_bytes()).hexdigest() != p["sha256"]:
            return f"{p['file']} does not match the manifest"
    if (path / "parts.journal").exists():
        return "journal left behind"
    if m["rows"] != sum(p["rows"] for p in m["parts"]):
        return "rows do not add up"
    return None


def edit_manifest(change):
    def then(tmp):
        p = tmp / "dir" / "manifest.json"
        doc = json.loads(p.read_text())
        doc = change(doc)
        p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return then


def set_key(path, value):
    def change(doc):
        d = doc
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
        return doc
    return change


def drop_key(key):
    def change(doc):
        del doc[key]
        return doc
    return change


DIR_UNCHANGED = {"{tmp}/dir/manifest.json": UNCHANGED, "{tmp}/dir/part-00000.npz": UNCHANGED,
                 "{tmp}/dir/part-00001.npz": UNCHANGED, "{tmp}/dir/part-00002.npz": UNCHANGED}

BAD_MANIFESTS = [
    ("not JSON", lambda d: "{not json"),
    ("a JSON array", lambda d: "[]"),
    ("parts is a number", set_key(["parts"], 5)),
    ("parts holds an empty object", set_key(["parts"], [{}])),
    ("parts holds a string", set_key(["parts"], ["part-00000.npz"])),
    ("a part's rows is a string", lambda d: set_key(["parts"], [dict(d["parts"][0], rows="3")])(d)),
    ("a part's rows is negative", lambda d: set_key(["parts"], [dict(d["parts"][0], rows=-3)])(d)),
    ("a part's sha256 is not hex", lambda d: set_key(["parts"], [dict(d["parts"][0], sha256="x" * 64)])(d)),
    ("a part's lines is an object", lambda d: set_key(["parts"], [dict(d["parts"][0], lines={})])(d)),
    ("a part's file is another name", lambda d: set_key(["parts"], [dict(d["parts"][0], file="../x.npz")])(d)),
    ("no config", drop_key("config")),
    ("config is a list", set_key(["config"], [])),
    ("no reading", drop_key("reading")),
    ("reading.inputs is a string", set_key(["reading", "inputs"], "corpus.txt")),
    ("shard_rows is a string", set_key(["shard_rows"], "3")),
    ("shard_rows is 0", set_key(["shard_rows"], 0)),
    ("complete is a string", set_key(["complete"], "yes")),
    ("inputs is null", set_key(["inputs"], None)),
    ("no parts", drop_key("parts")),
]

CASES = [
    Case("a complete run resumes to the same parts", resume(), 0, setup=finished(),
         files={"{tmp}/dir": complete_and_consistent, **DIR_UNCHANGED}),
    Case("without --resume an existing run is refused", resume()[:-1], 2, "already holds a manifest.json",
         setup=finished(), files=DIR_UNCHANGED),

    # Anything that decides the rows, changed: refused before touching the directory.
    Case("resume after the corpus was edited (same length) is refused", resume(), 2,
         "corpus.txt lines 4-6) changed since",
         setup=finished(then=lambda tmp: (tmp / "corpus.txt").write_text(LINES.replace("line 5", "LINE 5"))),
         files=DIR_UNCHANGED),
    Case("resume after the corpus grew is refused", resume(), 2, "corpus.txt is ",
         setup=finished(then=lambda tmp: (tmp / "corpus.txt").write_text(LINES + "more\n")), files=DIR_UNCHANGED),
    Case("resume after a skipped trailing line changed is refused", resume("--skip-empty"), 2,
         "part-00002.npz (",
         setup=finished(LINES + " \n", args=["--skip-empty"],
                        then=lambda tmp: (tmp / "corpus.txt").write_text(LINES + "\t\n")),
         files=DIR_UNCHANGED),
    Case("resume with another --input file is refused", resume(corpus="other.txt"), 2,
         "was written with --input", setup=finished(then=lambda tmp: (tmp / "other.txt").write_text(LINES)),
         files=DIR_UNCHANGED),
    Case("resume with --field other is refused",
         ["encode", "--input", "{tmp}/c.jsonl", "--input-format", "jsonl", "--field", "other", *BASE,
          "--output-dir", "{tmp}/dir", "--resume"], 2,
         "was written with --field text, this run has --field other",
         setup=finished("".join(json.dumps({"text": f"t{i}", "other": f"o{i}"}) + "\n" for i in range(5)),
                        name="c.jsonl", args=["--input-format", "jsonl"]),
         files={"{tmp}/dir/manifest.json": UNCHANGED, "{tmp}/dir/part-00000.npz": UNCHANGED}),
    Case("resume with --input-format jsonl over a lines run is refused", resume("--input-format", "jsonl"), 2,
         "was written with --input-format lines, this run has --input-format jsonl", setup=finished(),
         files=DIR_UNCHANGED),
    Case("--shard 2/2 into a finished shard 1/2 directory is refused", resume("--shard", "2/2"), 2,
         "was written with --shard 1/2, this run has --shard 2/2", setup=finished(args=["--shard", "1/2"]),
         files={"{tmp}/dir/manifest.json": UNCHANGED, "{tmp}/dir/part-00000.npz": UNCHANGED}),
    Case("resume with --skip-empty added is refused", resume("--skip-empty"), 2,
         "was written with --skip-empty off, this run has --skip-empty on", setup=finished(), files=DIR_UNCHANGED),
    Case("resume with other --shard-rows is refused",
         ["encode", "--input", "{tmp}/corpus.txt", "--d-model", "8", "--emit", "input_ids", "--shard-rows", "2",
          "--output-dir", "{tmp}/dir", "--resume"], 2, "was written with --shard-rows 3, this run has --shard-rows 2",
         setup=finished(), files=DIR_UNCHANGED),
    Case("resume with another --d-model is refused",
         ["encode", "--input", "{tmp}/corpus.txt", "--d-model", "16", "--emit", "input_ids", "--shard-rows", "3",
          "--output-dir", "{tmp}/dir", "--resume"], 2,
         "was written with config d_model 8, this run has config d_model 16", setup=finished(), files=DIR_UNCHANGED),
    Case("resume with another --seed is refused", resume("--seed", "7"), 2, "config embedding \"random-normal(seed=0, generator=splitmix64+box-muller-f32/3)\", this run has config embedding \"random-normal(seed=7, generator=splitmix64+box-muller-f32/3)\"", setup=finished(),
         files=DIR_UNCHANGED),
    Case("a directory begun by another embedpe version is refused, not mixed", resume(), 2,
         "was written with config embedpe_version \"0.0.1\", this run has config embedpe_version",
         setup=finished(then=edit_manifest(set_key(["config", "embedpe_version"], "0.0.1"))),
         files={"{tmp}/dir/part-00000.npz": UNCHANGED, "{tmp}/dir/part-00001.npz": UNCHANGED}),
    Case("resume with another --emit is refused", resume("--emit", "input_ids,attention_mask"), 2, "config emit",
         setup=finished(), files=DIR_UNCHANGED),

    Case("a run from stdin resumes from the same stdin", resume(corpus="-")[:2] + ["-"] + resume()[3:], 0,
         stdin_file="{tmp}/corpus.txt", setup=finished_from_stdin(),
         files={"{tmp}/dir": complete_and_consistent, **DIR_UNCHANGED}),
    Case("a run from stdin resumed with other text is refused", resume(corpus="-")[:2] + ["-"] + resume()[3:], 2,
         "<stdin> lines 4-6) changed since", stdin_file="{tmp}/corpus.txt",
         setup=finished_from_stdin(lambda tmp: (tmp / "corpus.txt").write_text(LINES.replace("line 5", "LINE 5"))),
         files={"{tmp}/dir/part-00001.npz": UNCHANGED, "{tmp}/dir/part-00002.npz": UNCHANGED}),

    # Parts and the directory.
    Case("a deleted part is redone, the rest kept", resume(), 0,
         setup=finished(then=lambda tmp: (tmp / "dir" / "part-00001.npz").unlink()),
         files={"{tmp}/dir": complete_and_consistent, "{tmp}/dir/part-00000.npz": UNCHANGED}),
    Case("a damaged part is redone", resume(), 0,
         setup=finished(then=lambda tmp: (tmp / "dir" / "part-00002.npz").write_bytes(b"junk")),
         files={"{tmp}/dir": complete_and_consistent}),
    Case("parts beyond the run's end are removed", resume(), 0,
         setup=finished(then=lambda tmp: (tmp / "dir" / "part-00007.npz").write_bytes(b"stale")),
         files={"{tmp}/dir": complete_and_consistent, "{tmp}/dir/part-00007.npz": ABSENT}),
    Case("a FIFO as a part is never opened", resume(), 1, "part-00001.npz is not a regular file",
         setup=finished(then=lambda tmp: ((tmp / "dir" / "part-00001.npz").unlink(),
                                          os.mkfifo(tmp / "dir" / "part-00001.npz"))),
         timeout=20, files={"{tmp}/dir/manifest.json": UNCHANGED}),
    Case("a FIFO beyond the end is an error too, found before anything is written", resume(), 1,
         "part-00003.npz is not a regular file",
         setup=finished(then=lambda tmp: os.mkfifo(tmp / "dir" / "part-00003.npz")), timeout=20,
         files={**DIR_UNCHANGED, "{tmp}/dir/part-00003.npz": PRESENT}),
    Case("a FIFO as a part of a fresh run's directory is refused",
         ["encode", "--input", "{tmp}/corpus.txt", *BASE, "--output-dir", "{tmp}/dir"], 2,
         "holds part-00000.npz but no manifest.json",
         setup=lambda tmp: ((tmp / "corpus.txt").write_text(LINES), (tmp / "dir").mkdir(),
                            os.mkfifo(tmp / "dir" / "part-00000.npz")), timeout=20),
    Case("a symlink as a part is refused, its target untouched", resume(), 1, "part-00000.npz is not a regular file",
         setup=finished(then=lambda tmp: ((tmp / "dir" / "part-00000.npz").unlink(),
                                          (tmp / "other.txt").write_text("theirs\n"),
                                          (tmp / "dir" / "part-00000.npz").symlink_to(tmp / "other.txt"))),
         files={"{tmp}/other.txt": UNCHANGED, "{tmp}/dir/manifest.json": UNCHANGED}),
    Case("an --input reached through a symlinked part is refused", resume(), 2, "is one of the files --output-dir",
         setup=finished(then=lambda tmp: ((tmp / "dir" / "part-00000.npz").unlink(),
                                          (tmp / "dir" / "part-00000.npz").symlink_to(tmp / "corpus.txt"))),
         files={"{tmp}/corpus.txt": UNCHANGED}),
    Case("part files without a manifest are another run's: refused",
         ["encode", "--input", "{tmp}/corpus.txt", *BASE, "--output-dir", "{tmp}/dir"], 2,
         "holds part-00000.npz but no manifest.json",
         setup=lambda tmp: ((tmp / "corpus.txt").write_text(LINES), (tmp / "dir").mkdir(),
                            (tmp / "dir" / "part-00000.npz").write_bytes(b"theirs")),
         files={"{tmp}/dir/part-00000.npz": UNCHANGED}),
    Case("an --input that is one of the directory's files is refused",
         ["encode", "--input", "{tmp}/dir/part-00000.npz", *BASE, "--output-dir", "{tmp}/dir"], 2,
         "is one of the files --output-dir",
         setup=lambda tmp: ((tmp / "dir").mkdir(), (tmp / "dir" / "part-00000.npz").write_text("text\n")),
         files={"{tmp}/dir/part-00000.npz": UNCHANGED}),
    Case("an interrupted run (journal, incomplete manifest) resumes from the journal", resume(), 0,
         setup=finished(then=lambda tmp: (
             (tmp / "dir" / "parts.journal").write_text(
                 "".join(json.dumps(p) + "\n" for p in json.loads((tmp / "dir" / "manifest.json").read_text())
                         ["parts"][1:]) + '{"file": "part-00003.np'),  # a last line cut short by the crash
             edit_manifest(lambda d: dict(d, complete=False, parts=d["parts"][:1]))(tmp))),
         files={"{tmp}/dir": complete_and_consistent, "{tmp}/dir/part-00001.npz": UNCHANGED}),
    Case("a manifest of 300 MB is refused without reading it", resume(), 1, "more than a manifest embedpe writes",
         setup=finished(then=lambda tmp: os.truncate(tmp / "dir" / "manifest.json", 300 << 20)), limits={"AS": 256 << 20},
         address_space_guard=True),
    Case("a FIFO as manifest.json is never opened for a blocking read", resume(), 1,
         "manifest.json is not a regular file",
         setup=finished(then=lambda tmp: ((tmp / "dir" / "manifest.json").unlink(),
                                          os.mkfifo(tmp / "dir" / "manifest.json"))), timeout=20),
    Case("a malformed journal line names the journal", resume(), 1, "parts.journal is not a valid embedpe manifest",
         setup=finished(then=lambda tmp: (tmp / "dir" / "parts.journal").write_text('{"file": 3}\n'))),
] + [
    Case(f"tampered manifest: {what}", resume(), 1, "manifest.json is not a valid embedpe manifest",
         setup=finished(then=edit_manifest(change)),
         files={"{tmp}/dir/part-00000.npz": UNCHANGED, "{tmp}/dir/part-00001.npz": UNCHANGED})
    for what, change in BAD_MANIFESTS
]
