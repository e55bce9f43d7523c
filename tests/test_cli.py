"""The ``rafle`` command itself: its version, its help texts and how it dispatches."""
from __future__ import annotations

import argparse
import io
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path

import pytest

from engine import get_variant, pos_to_fen, start_position
from protocol import about, cli

ROOT = Path(__file__).resolve().parents[1]


def rafle(capsys, *args: str) -> tuple[int, str, str]:
    """``rafle ARGS`` in this process: (exit code, stdout, stderr)."""
    try:
        code = cli.main(list(args))
    except SystemExit as exc:                 # argparse's --help and errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


# ----- version --------------------------------------------------------------------------

@pytest.mark.parametrize("word", ["--version", "-V", "version"])
def test_version_prints_the_installed_distributions_version(capsys, word):
    code, out, _ = rafle(capsys, word)
    assert code == 0
    assert out == f"rafle {installed_version('rafle')}\n"


def test_the_installed_version_is_the_checkouts():
    assert about.version() == about._pyproject_version(ROOT / "pyproject.toml")


def test_version_falls_back_to_pyproject_when_not_installed(monkeypatch, tmp_path):
    def missing(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(about, "_installed_version", missing)
    project = tmp_path / "pyproject.toml"
    project.write_text('[project]\nname = "rafle"\nversion = "9.8.7"\n')
    monkeypatch.setattr(about, "_PYPROJECT", project)
    assert about.version() == "9.8.7"
    project.write_text('[project]\nname = "other"\nversion = "1.2.3"\n')
    assert about.version() == "unknown"
    project.write_text("not [toml")
    assert about.version() == "unknown"


# ----- help texts -----------------------------------------------------------------------

def parsers(parser, prog: str):
    """``(prog, parser)`` for a parser and each of its subcommands' parsers."""
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, f"{prog} {name}")


def every_parser():
    found = []
    for name in cli.COMMANDS:
        parser = cli.build_parser(name)
        if name == "hub":            # --name=value parameters, its own usage (test_hub)
            assert parser is None
            continue
        assert parser is not None, f"rafle {name} has no build_parser()"
        found += parsers(parser, f"rafle {name}")
    return found


def test_every_option_of_every_command_says_what_it_does():
    missing = [f"{prog} {action.option_strings or action.dest}"
               for prog, parser in every_parser() for action in parser._actions
               if not isinstance(action, argparse._HelpAction) and not action.help]
    assert not missing


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_help_texts_are_plain_text(capsys, name):
    code, out, _ = rafle(capsys, name, "--help")
    assert code == 0 and out.startswith(f"usage: rafle {name}")
    texts = [out] + [p.format_help() for prog, p in every_parser() if prog.startswith(f"rafle {name} ")]
    for text in texts:
        assert "``" not in text and ":mod:" not in text, text
        description = text.split("\n\n")[1]
        assert description[:1].isupper(), description


def test_summary_drops_the_title_and_the_markup():
    doc = "``rafle x``: games of :class:`.Match`\n  and ``rafle y``.\n\nMore."
    assert about.summary(doc) == "Games of .Match and rafle y."


def test_the_command_list_is_aligned(capsys):
    code, out, _ = rafle(capsys, "--help")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("  ")]
    assert [row.split()[0] for row in rows] == list(cli.COMMANDS)
    starts = {row.index(row[2:].split(None, 1)[1], 2 + len(row.split()[0])) for row in rows}
    assert len(starts) == 1, rows


# ----- dispatch -------------------------------------------------------------------------

def test_plain_rafle_takes_the_text_modes_options(capsys, monkeypatch):
    setup = "W:W28:B19"
    for args, banner in [([], "Rafle: international draughts. White: you, Black: Rafle;"),
                         (["--play", "none", "--depth", "1", "--setup", setup],
                          "Rafle: international draughts. White: Rafle, Black: Rafle; level depth 1."),
                         (["--variant", "russian", "--play", "both"],
                          "Rafle: russian draughts. White: human, Black: human;")]:
        monkeypatch.setattr("sys.stdin", io.StringIO("fen\nquit\n"))
        code, out, err = rafle(capsys, *args)
        # A kernel that loads from the cache in over a second (a loaded machine) is announced.
        err = "".join(ln for ln in err.splitlines(True) if not ln.startswith("rafle: compil"))
        assert code == 0 and err == "", err
        assert out.startswith(banner), out
        fen = out.split("> fen\n")[1].splitlines()[0]
        assert fen == (setup if "--setup" in args else
                       pos_to_fen(start_position(get_variant(args[1] if args else "international"))))


def test_a_bad_option_of_plain_rafle_gets_plays_error(capsys):
    code, _, err = rafle(capsys, "--play", "nobody")
    assert code == 2 and "rafle play: error: argument --play: invalid choice: 'nobody'" in err
    code, _, err = rafle(capsys, "tetris")
    assert code == 2 and "unknown command 'tetris'" in err


# ----- match and tournament -------------------------------------------------------------

@pytest.mark.parametrize("command", ["match", "tournament"])
def test_concurrency_goes_up_to_the_number_of_cores(capsys, monkeypatch, command):
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    parser = cli.build_parser(command)
    assert parser.parse_args(["--concurrency", "6"]).concurrency == 6
    assert parser.parse_args(["--concurrency", "3"]).concurrency == 3
    for bad in ("7", "0", "-1", "two"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--concurrency", bad])
        err = capsys.readouterr().err
        assert f"argument --concurrency: '{bad}': from 1 to 6, the number of cores" in err, err


def test_a_clock_with_units_plays_and_a_bad_one_is_named(capsys):
    from protocol.tools.match.runner import Match
    args = cli.build_parser("match").parse_args(["--tc", "5m+2s,40/1m30s"])
    first, second = Match._limits(args)
    assert (first.base, first.inc, first.moves) == (300.0, 2.0, 0)
    assert (second.base, second.inc, second.moves) == (90.0, 0.0, 40)
    code, out, err = rafle(capsys, "match", "--tc", "5x")
    assert code == 2 and out == ""
    assert err.startswith("rafle match: bad time control '5x'") and "5m+2s" in err, err
    assert "Traceback" not in err and "could not convert" not in err
    code, out, err = rafle(capsys, "match", "--movetime", "soon")
    assert code == 2 and err.startswith("rafle match: --movetime 'soon': 'soon' is not a time"), err
