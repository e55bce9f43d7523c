"""What an analysis says in sum: per game and player counts of marks, average loss and
accuracy (:func:`summary_lines`), and one static HTML page (:func:`html_report`): the players'
crosstable, each game's evaluation graph (inline SVG), its marked moves with the better move,
and its missed shots.  The page has no script and loads nothing: it opens in any browser."""
from __future__ import annotations

import html
from dataclasses import dataclass

from .game import WORDS, GameAnalysis, MoveAnalysis
from .winprob import accuracy, win_probability

POINTS = {"2-0": (2, 0), "0-2": (0, 2), "1-1": (1, 1)}


@dataclass(frozen=True)
class Stats:
    """One player's moves judged: marks counted, average losses, accuracy (0..100)."""

    moves: int
    inaccuracies: int
    mistakes: int
    blunders: int
    cp_loss: float        # average, hundredths of a man
    loss: float           # average win probability lost, percent points
    accuracy: float

    def __str__(self) -> str:
        if not self.moves:
            return "no move to judge (forced moves only)"
        return (f"{self.inaccuracies} inaccuracies, {self.mistakes} mistakes, {self.blunders} "
                f"blunders, average loss {self.cp_loss:.0f} centi-men, accuracy {self.accuracy:.1f}")


def stats(moves: list[MoveAnalysis]) -> Stats:
    """The stats of ``moves`` (forced moves left out)."""
    chosen = [m for m in moves if not m.forced]
    n = len(chosen)
    loss = sum(m.loss for m in chosen) / n if n else 0.0
    cp = sum(m.cp_loss for m in chosen) / n if n else 0.0
    count = {mark: sum(m.mark == mark for m in chosen) for mark in WORDS}
    return Stats(n, count["?!"], count["?"], count["??"], cp, loss, accuracy(loss))


def title(analysis: GameAnalysis) -> str:
    t = analysis.tags
    return (f"{t.get('Event', '?')} round {t.get('Round', '?')}: {t.get('White', '?')} - "
            f"{t.get('Black', '?')} {t.get('Result', '*')}")


def summary_lines(analyses: list[GameAnalysis]) -> list[str]:
    """The text summary: each game and its two players, then each player over all games."""
    lines = []
    by_player: dict[str, list[MoveAnalysis]] = {}
    for a in analyses:
        lines.append(title(a))
        for side in ("white", "black"):
            name = a.tags.get(side.capitalize(), "?")
            lines.append(f"  {name} ({side}): {stats(a.by(side))}")
            by_player.setdefault(name, []).extend(a.by(side))
    if len(analyses) > 1:
        lines.append("players over all games:")
        lines += [f"  {name}: {stats(moves)}" for name, moves in sorted(by_player.items())]
    return lines


def crosstable(analyses: list[GameAnalysis]) -> tuple[list[str], dict[tuple[str, str], list[int]]]:
    """The players (by points, then name) and, per (player, opponent), the points of each game."""
    cells: dict[tuple[str, str], list[int]] = {}
    total: dict[str, int] = {}
    for a in analyses:
        white, black = a.tags.get("White", "?"), a.tags.get("Black", "?")
        total.setdefault(white, 0)
        total.setdefault(black, 0)
        points = POINTS.get(a.tags.get("Result", "*"))
        if points is None:
            continue
        cells.setdefault((white, black), []).append(points[0])
        cells.setdefault((black, white), []).append(points[1])
        total[white] += points[0]
        total[black] += points[1]
    players = sorted(total, key=lambda p: (-total[p], p))
    return players, cells


def _crosstable_html(analyses: list[GameAnalysis]) -> str:
    players, cells = crosstable(analyses)
    head = "".join(f"<th>{i + 1}</th>" for i in range(len(players)))
    rows = []
    for i, p in enumerate(players):
        row = []
        for q in players:
            games = cells.get((p, q), [])
            row.append("<td class=x></td>" if p == q else
                       f"<td>{' '.join(map(str, games))}</td>")
        points = sum(sum(g) for (a, _), g in cells.items() if a == p)
        played = sum(len(g) for (a, _), g in cells.items() if a == p)
        rows.append(f"<tr><th>{i + 1}</th><td class=name>{html.escape(p)}</td>{''.join(row)}"
                    f"<td>{points}/{2 * played}</td></tr>")
    return (f"<table class=cross><tr><th></th><th>player</th>{head}<th>points</th></tr>"
            + "".join(rows) + "</table>")


def _chance_white(m: MoveAnalysis, k: float) -> float:
    if m.egdb:
        return {"win": 1.0, "draw": 0.5, "loss": 0.0}[m.egdb]
    return 0.5 if m.eval is None else win_probability(m.eval, k)


def eval_svg(analysis: GameAnalysis, width: int = 640, height: int = 160) -> str:
    """The game's graph: White's expected result after each move (top: White wins), with
    the marked moves as dots (inaccuracy yellow, mistake orange, blunder red)."""
    moves = analysis.moves
    start = 0.5 if analysis.start_eval is None else win_probability(analysis.start_eval,
                                                                    analysis.k)
    values = [start] + [_chance_white(m, analysis.k) for m in moves]
    step = width / max(1, len(values) - 1)
    points = [(i * step, (1 - v) * height) for i, v in enumerate(values)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    colour = {"?!": "#d9b300", "?": "#e67e00", "??": "#d00000"}
    dots = "".join(f'<circle cx="{points[m.ply + 1][0]:.1f}" cy="{points[m.ply + 1][1]:.1f}" '
                   f'r="3" fill="{colour[m.mark]}"><title>{html.escape(_move_name(m))} '
                   f'{m.mark}</title></circle>' for m in moves if m.mark)
    area = f"0,{height} {line} {points[-1][0]:.1f},{height}"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="evaluation graph">'
            f'<rect width="{width}" height="{height}" fill="#333"/>'
            f'<polygon points="{area}" fill="#eee"/>'
            f'<line x1="0" y1="{height / 2}" x2="{width}" y2="{height / 2}" stroke="#888" '
            f'stroke-dasharray="4 3"/>'
            f'<polyline points="{line}" fill="none" stroke="#1a73e8" stroke-width="1.5"/>'
            f'{dots}</svg>')


def _move_name(m: MoveAnalysis) -> str:
    number = m.ply // 2 + 1
    return f"{number}. {m.move}" if m.side == "white" else f"{number}... {m.move}"


def _game_html(number: int, a: GameAnalysis) -> str:
    parts = [f"<section><h2>{number}. {html.escape(title(a))}</h2>", eval_svg(a)]
    for side in ("white", "black"):
        parts.append(f"<p>{html.escape(a.tags.get(side.capitalize(), '?'))} ({side}): "
                     f"{html.escape(str(stats(a.by(side))))}</p>")
    marked = [m for m in a.moves if m.mark]
    if marked:
        parts.append("<h3>Mistakes</h3><ul>")
        parts += [f"<li>{html.escape(_move_name(m))} {m.mark} {WORDS[m.mark].lower()} "
                  f"(-{m.loss:.0f}%): better {html.escape(' '.join(m.line[:6]) or m.best)}</li>"
                  for m in marked]
        parts.append("</ul>")
    parts += _shot_list("Missed shots", ": ", [(m, m.shot, m.shot_gain) for m in a.moves])
    parts += _shot_list("Shots allowed", " allowed ",
                        [(m, m.allowed, m.allowed_gain) for m in a.moves])
    return "".join(parts) + "</section>"


def _shot_list(title: str, joint: str, rows: list) -> list[str]:
    """A list of the moves with a shot line (missed, or allowed): move, line, gain."""
    rows = [(m, line, gain) for m, line, gain in rows if line]
    if not rows:
        return []
    return ([f"<h3>{title}</h3><ul>"]
            + [f"<li>{html.escape(_move_name(m))}{joint}{html.escape(' '.join(line))} "
               f"(+{gain})</li>" for m, line, gain in rows] + ["</ul>"])


STYLE = ("body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}"
         "table.cross{border-collapse:collapse}table.cross td,table.cross th{border:1px solid #aaa;"
         "padding:2px 6px;text-align:center}td.name{text-align:left}td.x{background:#ccc}"
         "svg{display:block;margin:.5em 0}")


def html_report(analyses: list[GameAnalysis], heading: str = "Rafle analysis") -> str:
    """The whole page, one file."""
    body = [f"<h1>{html.escape(heading)}</h1>", "<h2>Crosstable</h2>", _crosstable_html(analyses)]
    body += [_game_html(i + 1, a) for i, a in enumerate(analyses)]
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f"<title>{html.escape(heading)}</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
