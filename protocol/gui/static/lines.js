// The engine's analysis lines: line 1 in the info box (depth, score, speed, the numbered
// variation), lines 2-5 below it, each with its score and depth, in a box of fixed height;
// an arrow on the board for each line's first move (the first thicker), coloured by the
// endgame databases' verdict when they hold the position.
import { numbered, firstMover } from "./movelist.js";

const $ = (id) => document.getElementById(id);

export class AnalysisLines {
  constructor(board, settings) {
    this.board = board;
    this.settings = settings;
    this.lines = {};            // line number -> last info
    this.key = null;            // the position the lines are of
  }

  clear() {
    this.lines = {};
    for (const id of ["info-depth", "info-score", "info-nps", "info-pv"]) $(id).textContent = "";
    $("lines").replaceChildren();
    this.arrows();
  }

  // The state changed: lines of another position or task are dropped.
  sync(state) {
    const key = state.task ? `${state.fen}|${state.task.mode}|${state.task.ply}` : null;
    if (key !== this.key) { this.key = key; this.clear(); }
    const sel = $("lines-count");
    if (sel && Number(sel.value) !== state.multipv) sel.value = String(state.multipv || 1);
    // The box keeps a row for each line asked for, filled or not.
    $("info").style.setProperty("--extra", String((state.multipv || 1) - 1));
  }

  add(info, state) {
    const line = info.line || 1;
    if (line === 1) {
      // A new depth: lines of the previous one stay until theirs arrive.
      $("info-depth").textContent = info.depth ? `depth ${info.depth}` : "";
      $("info-score").textContent = info.score !== "" ? `score ${info.score}` : "";
      $("info-nps").textContent = info.nps ? `${Math.round(info.nps / 1000)} kN/s` : "";
    }
    this.lines[line] = info;
    for (const k of Object.keys(this.lines)) if (Number(k) > (state.multipv || 1)) delete this.lines[k];
    this.show(state);
  }

  pvText(info, state) {
    if (!info.pv) return "";
    return numbered(info.pv.split(" "), state.ply, state.turn, firstMover(state));
  }

  show(state) {
    const first = this.lines[1];
    $("info-pv").textContent = first ? this.pvText(first, state) : "";
    const list = $("lines");
    list.replaceChildren();
    for (let k = 2; k <= (state.multipv || 1); k++) {
      const info = this.lines[k];
      if (!info) continue;
      const li = document.createElement("li");
      li.dataset.line = String(k);
      const score = document.createElement("b");
      score.className = "score";
      score.textContent = info.score;
      const depth = document.createElement("span");
      depth.className = "depth";
      depth.textContent = `d${info.depth}`;
      const pv = document.createElement("span");
      pv.className = "pv";
      pv.textContent = this.pvText(info, state);
      li.append(score, " ", depth, " ", pv);
      list.appendChild(li);
    }
    this.arrows(state);
  }

  arrows(state) {
    const a = [];
    if (state && this.settings.arrows)
      for (const [k, info] of Object.entries(this.lines))
        if (info.first && Number(k) <= (state.multipv || 1)) {
          const db = state.db && info.pv ? state.db[info.pv.split(" ")[0]] : undefined;
          a.push({ ...info.first, rank: Number(k), tone: db });
        }
    this.board.arrows = a;
    if (this.board.state) this.board.draw();
  }
}

// The database verdict of each legal move, as badges that play the move.
export function renderDatabase(state, play) {
  const box = $("dbmoves");
  box.replaceChildren();
  const entries = Object.entries(state.db || {});
  box.hidden = entries.length === 0;
  if (!entries.length) return;
  const order = { win: 0, draw: 1, loss: 2 };
  entries.sort((p, q) => order[p[1]] - order[q[1]]);
  const head = document.createElement("span");
  head.textContent = "Databases: ";
  box.appendChild(head);
  for (const [text, value] of entries) {
    const b = document.createElement("button");
    b.className = `db ${value}`;
    b.dataset.move = text;
    b.title = `${text}: a ${value} for ${state.turn === "white" ? "White" : "Black"} (endgame databases)`;
    b.textContent = `${text} ${value}`;
    b.onclick = () => play(text);
    box.appendChild(b);
  }
}
