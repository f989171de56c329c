"""Upload validation: every refusal gets its reason; good uploads come back as files."""

from __future__ import annotations

import io
import resource
import stat
import zipfile

import pytest

from bots import compilecheck, validation
from bots.validation import UploadRejected, materialize, validate_upload
from tests.support.archives import make_zip


def rejected(filename, data) -> str:
    with pytest.raises(UploadRejected) as caught:
        validate_upload(filename, data)
    return caught.value.reason


def test_py_upload_becomes_main():
    upload = validate_upload("mybot.py", b"print('hi')\n")
    assert upload.files == {"main.py": b"print('hi')\n"}
    assert upload.size == 12 and len(upload.sha256) == 64 and upload.kind == "py"


def test_zip_happy_path_and_materialize(tmp_path):
    data = make_zip({"main.py": b"import helper\n", "helper.py": b"X = 1\n", "data/": b"",
                     "data/table.txt": b"1 2 3"})  # fmt: skip
    upload = validate_upload("bot.zip", data)
    assert set(upload.files) == {"main.py", "helper.py", "data/table.txt"}
    materialize(upload.files, tmp_path / "bot")
    assert (tmp_path / "bot" / "helper.py").read_bytes() == b"X = 1\n"
    assert not (tmp_path / "bot" / "main.py").stat().st_mode & 0o222  # read-only
    with pytest.raises(FileExistsError):
        materialize(upload.files, tmp_path / "bot")


def test_zip_of_a_folder_is_unwrapped():
    upload = validate_upload("bot.zip", make_zip({"mybot/main.py": b"", "mybot/h.py": b""}))
    assert set(upload.files) == {"main.py", "h.py"}


@pytest.mark.parametrize(
    "filename, data, expected",
    [
        ("bot.py", b"def f(:\n    pass\n", "bot.py: SyntaxError line 1"),
        ("bot.py", b"x = 1\n\n  y = 2\n", "bot.py: IndentationError line 3"),
        ("bot.py", b"print('\xff')\n", "bot.py: not UTF-8"),
        ("bot.py", b"", "empty"),
        ("bot.py", b"x=1\x00\n", "null bytes"),
        ("bot.exe", b"MZ", "upload a .py file or a .zip"),
        ("bot.zip", b"not a zip", "not a valid zip archive"),
        ("bot.py", b"#" * (validation.MAX_UPLOAD_BYTES + 1), "the limit is 1048576 bytes"),
    ],
)
def test_refusals(filename, data, expected):
    assert expected in rejected(filename, data)


@pytest.mark.parametrize(
    "entries, expected",
    [
        ({"helper.py": b""}, "no main.py"),
        ({"main.py": b"", "/etc/passwd": b""}, "absolute paths"),
        ({"main.py": b"", "../evil.py": b""}, "'..'"),
        ({"main.py": b"", "a/../../evil.py": b""}, "'..'"),
        ({"main.py": b"", "link": (b"/etc/passwd", stat.S_IFLNK | 0o777)}, "symbolic links"),
        ({"main.py": b"", "fifo": (b"", stat.S_IFIFO | 0o644)}, "devices, pipes"),
        ({"main.py": b"", "dev": (b"", stat.S_IFCHR | 0o644)}, "devices, pipes"),
        ({"main.py": b"", "helper.py": b"def (:"}, "helper.py: SyntaxError line 1"),
        ({"main.py": b"", "a\\b.py": b""}, "backslashes"),
    ],
)
def test_zip_refusals(entries, expected):
    assert expected in rejected("bot.zip", make_zip(entries))


def test_too_many_entries():
    entries = {f"f{i}.txt": b"" for i in range(validation.MAX_ENTRIES + 1)}
    entries["main.py"] = b""
    assert "entries; the limit is 200" in rejected("bot.zip", make_zip(entries))


def test_zip_bomb_ratio():
    data = make_zip({"main.py": b"", "bomb.txt": b"\0" * (4 << 20)})
    assert len(data) < 10_000
    assert "compression ratio" in rejected("bot.zip", data)


def test_declared_size_cap(monkeypatch):
    monkeypatch.setattr(validation, "MAX_UNPACKED_BYTES", 1000)
    data = make_zip({"main.py": b"", "big.txt": b"y" * 2000})
    assert "unpacks to 2000 bytes; the limit is 1000" in rejected("bot.zip", data)


def test_lying_sizes_are_caught():
    data = bytearray(make_zip({"main.py": b"x = 1\n"}, compression=zipfile.ZIP_STORED))
    # Shrink the declared size in the central directory: the content no longer matches.
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (2).to_bytes(4, "little")
    reason = rejected("bot.zip", bytes(data))
    assert "cannot be read" in reason or "lies about sizes" in reason


def test_non_utf8_name():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", b"")
        archive.writestr("NAME.py", b"")
    data = buffer.getvalue().replace(b"NAME.py", b"N\xffME.py")
    assert "not UTF-8" in rejected("bot.zip", data)


def test_encrypted_entry():
    data = bytearray(make_zip({"main.py": b"", "s.txt": b"secret"}, compression=zipfile.ZIP_STORED))
    for marker in (b"PK\x03\x04", b"PK\x01\x02"):
        start = 0
        while (at := data.find(marker, start)) >= 0:
            flag_at = at + (6 if marker == b"PK\x03\x04" else 8)
            data[flag_at] |= 1
            start = at + 4
    assert "encrypted" in rejected("bot.zip", bytes(data))


# Deep nesting makes the compiler itself give up: RecursionError for the shorter one,
# MemoryError (the parser's stack) for the longer ones. Each is a refusal, never a crash.
DEEPLY_NESTED = {
    "minus chain": b"x = " + b"-" * 3000 + b"1\n",
    "longer minus chain": b"x = " + b"-" * 100_000 + b"1\n",
    "attribute chain": b"x = a" + b".b" * 100_000 + b"\n",
    "lambda chain": b"x = " + b"lambda: " * 3000 + b"1\n",
    "elif chain": b"if 1: pass\n" + b"elif 1: pass\n" * 60_000,
}


@pytest.mark.parametrize("case", sorted(DEEPLY_NESTED))
def test_too_deeply_nested_source_is_refused(case):
    source = DEEPLY_NESTED[case]
    assert rejected("bot.py", source) == "bot.py: too deeply nested to compile"
    stored = make_zip({"main.py": b"", "lib/deep.py": source}, compression=zipfile.ZIP_STORED)
    inside = rejected("bot.zip", stored)
    assert inside == "bot.zip: lib/deep.py: too deeply nested to compile"


def test_any_other_compiler_failure_is_a_refusal(monkeypatch):
    """Whatever else compile() raises on hostile input (OverflowError, SystemError, ...)
    refuses the upload with the file's name instead of escaping as a server error."""

    def overflowing_compile(*args, **kwargs):
        raise OverflowError("line number overflow")

    monkeypatch.setattr(compilecheck, "compile", overflowing_compile, raising=False)
    refusal = compilecheck.compile_refusal("main.py", b"x = 1\n")
    assert refusal == "main.py: cannot be compiled: line number overflow"


def test_a_megabyte_of_nesting_costs_the_child_not_the_caller():
    """The parser's memory for a hostile source is spent in the capped child: compiled in
    this process, this source took about 635 MB; here this process grows by little."""
    source = b"x = " + b"1<" * ((validation.MAX_UPLOAD_BYTES - 16) // 2) + b"1\n"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    reason = rejected("bot.py", source)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert reason in (
        "bot.py: too deeply nested to compile",
        f"compiling the upload's Python needs more than {compilecheck.CPU_SECONDS} s of CPU "
        f"or {compilecheck.MEMORY_BYTES >> 20} MB",
    )
    assert grown_mb < 100, f"the caller grew by {grown_mb:.0f} MB"


def test_the_kind_is_read_off_the_name_once():
    assert validation.upload_kind("Bot.PY") == "py"
    assert validation.upload_kind("dir\\bot.zip") == "zip"
    with pytest.raises(UploadRejected, match="upload a .py file or a .zip"):
        validation.upload_kind("bot.py.txt")


def test_a_stored_kind_wins_over_the_display_name():
    """A version is unpacked by the kind recorded at upload, whatever its display name."""
    data = make_zip({"main.py": b"print(1)\n"})
    assert set(validate_upload("notes", data, kind="zip").files) == {"main.py"}
    assert validate_upload("bot.zip", b"print(1)\n", kind="py").files == {"main.py": b"print(1)\n"}


@pytest.mark.parametrize(
    "filename, expected",
    [
        ("bot.py", "bot.py"),
        ("/home/me/bot.py", "bot.py"),
        ("C:\\Users\\me\\bot.zip", "bot.zip"),
        ("b" * 297 + ".py", "b" * 197 + ".py"),
        ("z" * 400 + ".ZIP", "z" * 196 + ".ZIP"),
        ("", "upload"),
    ],
    ids=["short", "posix path", "windows path", "297 + .py", "400 + .ZIP", "empty"],
)
def test_display_filename_is_shortened_keeping_its_extension(filename, expected):
    shown = validation.display_filename(filename)
    assert shown == expected and len(shown) <= validation.MAX_FILENAME_CHARS


@pytest.mark.parametrize(
    "entries, both",
    [
        ({"main.py": b"", "x": b"", "x/y.py": b""}, "x"),
        ({"main.py": b"", "x/y.py": b"", "x": b""}, "x"),
        ({"main.py": b"", "a/b": b"", "a/b/c/d.txt": b""}, "a/b"),
        ({"main.py": b"", "main.py/inner.py": b""}, "main.py"),
        ({"main.py": b"", "x/": b"", "x": b""}, "x"),
        ({"mybot/main.py": b"", "mybot/x": b"", "mybot/x/y.py": b""}, "mybot/x"),
        ({"mybot/main.py": b"", "mybot/x/y.py": b"", "mybot/x": b""}, "mybot/x"),
    ],
    ids=["file first", "file last", "deeper", "main.py", "folder entry", "in a top folder",
         "in a top folder, file last"],
)  # fmt: skip
def test_a_path_that_is_both_a_file_and_a_folder_is_refused(entries, both):
    """Unpacking such a zip can only fail (on the worker, long after the upload was taken)."""
    assert rejected("bot.zip", make_zip(entries)) == (
        f"{both!r} is both a file and a folder in the zip"
    )
