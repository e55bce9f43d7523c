"""The documentation: the site builds in strict mode (no broken link, no page outside the
navigation), the generated options and API pages match the code, and the README is short and
names only commands the CLI accepts."""
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.options import OPTIONS

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("mkdocs")
pytest.importorskip("material")


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = load_hooks()


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-f", str(root / "mkdocs.yml"), "-d", str(site)],
                          cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def copy_of_the_docs(tmp_path: Path) -> Path:
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "docs", copy / "docs", ignore=shutil.ignore_patterns("matches"))
    for name in ("mkdocs.yml", "CHANGELOG.md"):
        shutil.copy(ROOT / name, copy / name)
    return copy


# ----- the site ------------------------------------------------------------------------

def test_the_site_builds_in_strict_mode(tmp_path):
    done = build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    for page in ("index.html", "options/index.html", "api/index.html", "strength/index.html",
                 "changelog/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    assert "Keep a Changelog" in (tmp_path / "site" / "changelog" / "index.html").read_text()


@pytest.mark.parametrize("breakage", ["a broken link", "a page outside the navigation",
                                      "a missing anchor"])
def test_a_strict_build_fails_on(tmp_path, breakage):
    copy = copy_of_the_docs(tmp_path)
    page = copy / "docs" / "install.md"
    if breakage == "a broken link":
        page.write_text(page.read_text() + "\nSee [nowhere](no-such-page.md).\n")
    elif breakage == "a page outside the navigation":
        (copy / "docs" / "stray.md").write_text("# Stray\n")
    else:
        page.write_text(page.read_text() + "\nSee [the hub](hub.md#no-such-heading).\n")
    done = build(copy, tmp_path / "site")
    assert done.returncode != 0, breakage
    assert "Aborted with" in done.stderr + done.stdout


def test_the_board_pictures_are_in_the_site():
    board = (ROOT / "docs" / "board.md").read_text()
    for name in ("desktop.png", "phone.png"):
        assert (ROOT / "docs" / "img" / name).is_file() and f"img/{name}" in board


# ----- generated pages -----------------------------------------------------------------

def test_the_options_page_is_the_option_table():
    page = HOOKS.options_page()
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| ([^|]+) \| `([^`]*)` \|", page, re.M)
    assert [name for name, _, _ in rows] == [o.name for o in OPTIONS]
    for (name, _, default), option in zip(rows, OPTIONS):
        assert default == (option.default or "(empty)"), name
    assert "| `threads` | 1-" in page and "| `eval` | learned, hand |" in page


def test_every_option_the_pages_name_exists():
    """An option written by hand on a page (set-param, --option, option.NAME=, rafle hub
    --NAME=) is one the Hub declares: the table's, or ``variant``."""
    intro = subprocess.run([sys.executable, "-m", "protocol.cli", "hub"], input="hub\nquit\n",
                           capture_output=True, text=True, timeout=60, cwd=ROOT).stdout
    names = set(re.findall(r"^param name=([a-z0-9-]+)", intro, re.M))   # the table + variant
    assert {o.name for o in OPTIONS} | {"variant"} == names
    said = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        said |= {(page.name, n) for n in re.findall(r"set-param name=([a-z0-9-]+)", text)}
        said |= {(page.name, n) for n in re.findall(r"--option[12]? ([a-z0-9-]+)=", text)}
        said |= {(page.name, n) for n in re.findall(r"\boption\.([a-z0-9-]+)=", text)}
        said |= {(page.name, n) for n in re.findall(r"rafle hub --([a-z0-9-]+)=", text)}
    assert said, "the pages show no option being set"
    unknown = sorted((p, n) for p, n in said if n not in names)
    assert not unknown


def test_every_public_name_has_a_docstring_on_the_api_page():
    page = HOOKS.api_page()
    for name in engine.__all__:
        assert HOOKS.docstring(name), f"{name} has no docstring"
        assert f"### `{name}`" in page, name


def test_a_constant_docstring_is_the_literal_after_it():
    assert HOOKS.docstring("VARIANTS").startswith("Every variant by its own name")
    assert "White (0) moves first" in HOOKS.docstring("WHITE")


# ----- the README ----------------------------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_the_quick_start_is_two_lines():
    block = re.search(r"## Quick start\s+```\w*\n(.*?)```", README, re.S).group(1)
    assert block.splitlines() == ['pip install . && rafle warm && rafle perft --depth 9',
                                  'bash .ci/run']


def shown_commands(text: str) -> list[list[str]]:
    """The ``rafle ...`` commands of a page's fenced blocks and inline code, as words, each
    cut at a shell operator or comment."""
    found = []
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    lines += re.findall(r"`(rafle [^`]+)`", text)
    for line in lines:
        for part in re.split(r"&&|\|\||;|\|", line.split(" #")[0]):
            part = part.strip()
            if part.startswith("rafle ") and not re.match(r"rafle (\S*:|\()", part):  # output
                try:
                    found.append(shlex.split(part.rstrip("\\")))
                except ValueError:
                    found.append(part.split())
    return found


HELP_CACHE: dict[tuple[str, ...], str] = {}


def help_of(words: tuple[str, ...]) -> tuple[int, str]:
    if words not in HELP_CACHE:
        done = subprocess.run([sys.executable, "-m", "protocol.cli", *words, "--help"],
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
        HELP_CACHE[words] = (done.returncode, done.stdout)
    return HELP_CACHE[words]


def check_command(words: list[str]) -> list[str]:
    """What is wrong with ``rafle WORDS...``: an unknown subcommand or flag."""
    word = re.compile(r"[a-z][a-z0-9-]*")
    sub = [w for w in words[1:2] if word.fullmatch(w)]          # rafle --play none: no subcommand
    if sub and len(words) > 2 and word.fullmatch(words[2]):
        sub.append(words[2])
    code, text = help_of(tuple(sub[:1]) or ("play",))       # plain rafle takes play's flags
    if code != 0:
        return [f"rafle {sub[0] if sub else ''}: --help fails"]
    if len(sub) > 1 and re.search(rf"\b{sub[1]}\b", text.split("options:")[0]):
        code, text = help_of(tuple(sub[:2]))        # rafle egdb build, rafle book info
        if code != 0:
            return [f"rafle {' '.join(sub[:2])}: --help fails"]
    flags = {f.split("=")[0] for f in words if f.startswith("--")} - {"--help"}
    if not sub:
        flags.discard("--version")                          # rafle --version
    if sub[:1] == ["hub"]:                          # rafle hub --threads=2: the options
        flags -= {f"--{o.name}" for o in OPTIONS}
    return [f"{' '.join(words)}: {flag}" for flag in sorted(flags)
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text)]


def test_every_readme_command_is_one_the_cli_accepts():
    commands = shown_commands(README)
    assert len(commands) >= 8
    problems = [p for words in commands for p in check_command(words)]
    assert not problems


def test_every_command_of_the_documentation_is_one_the_cli_accepts():
    problems = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        for words in shown_commands(page.read_text(encoding="utf-8")):
            problems += [f"{page.name}: {p}" for p in check_command(words)]
    assert not problems


def test_the_command_check_finds_a_wrong_flag_and_a_wrong_command():
    assert check_command(["rafle", "perft", "--depth", "3"]) == []
    assert check_command(["rafle", "perft", "--no-such-flag"])
    assert check_command(["rafle", "no-such-command"])
    assert check_command(["rafle", "--play", "none", "--depth", "6"]) == []
    assert check_command(["rafle", "egdb", "build", "--pieces", "4"]) == []
    assert check_command(["rafle", "egdb", "build", "--no-such-flag"])
    assert check_command(["rafle", "hub", "--threads=2"]) == []
    assert check_command(["rafle", "hub", "--no-such-option=2"])


def test_the_version_agrees_everywhere():
    import tomllib
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    printed = subprocess.run([sys.executable, "-m", "protocol.cli", "--version"],
                             capture_output=True, text=True, timeout=60, cwd=ROOT).stdout
    assert printed.split() == ["rafle", declared]
    hub = subprocess.run([sys.executable, "-m", "protocol.cli", "hub"], input="hub\nquit\n",
                         capture_output=True, text=True, timeout=60, cwd=ROOT).stdout
    assert f"id name=Rafle version={declared}" in hub, hub
    assert f"## [{declared}]" in (ROOT / "CHANGELOG.md").read_text()
