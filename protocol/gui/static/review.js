// The game review (protocol/gui/review.py) and puzzles (protocol/gui/puzzles.py) on the
// page: the analysis' progress, its marks in the move list (?! ? ?? in colour), the better
// line as arrows from a marked move, learn mode's and puzzle mode's buttons.
const $ = (id) => document.getElementById(id);
const KIND = { "?!": "inaccuracy", "?": "mistake", "??": "blunder" };

export class Review {
  constructor(board, send) {
    this.board = board;
    this.send = send;
    this.state = null;
    this.focus = null;          // {ply, shown}: a marked move clicked, its line drawn at ply
    // A click on a marked move goes to the position before it (not after, as other moves).
    $("moves").addEventListener("click", (e) => {
      const span = e.target.closest("#moves span.marked");
      if (!span || !this.state) return;
      e.stopPropagation();
      const ply = Number(span.dataset.ply) - 1;
      this.focus = { ply, shown: false };
      if (this.state.ply !== ply) this.send({ type: "goto", ply });
      else this.show(this.state);
    }, true);
    $("btn-review").onclick = () => this.toggle();
    $("btn-learn").onclick = () => {
      const learning = this.state && this.state.review && this.state.review.learn;
      this.send({ type: "learn", on: !learning });
    };
    $("btn-shots").onclick = () => this.send({ type: "puzzles", from: "review" });
    $("btn-puzzle-retry").onclick = () => this.puzzle(0);
    $("btn-puzzle-next").onclick = () => this.puzzle(1);
    $("btn-puzzle-stop").onclick = () => this.send({ type: "puzzle", on: false });
    $("puzzle-file").addEventListener("change", async () => {
      const file = $("puzzle-file").files[0];
      if (!file) return;
      if (file.size > 2_000_000) { $("error").textContent = "that puzzle file is too big (over 2 MB)"; return; }
      this.send({ type: "puzzles", text: await file.text(), name: file.name });
      $("puzzle-file").value = "";
    });
  }

  toggle() {
    const running = this.state && this.state.review && this.state.review.running;
    this.send({ type: "review", on: !running });
  }

  puzzle(step) {
    const p = this.state && this.state.puzzle;
    if (p) this.send({ type: "puzzle", index: Math.min(p.index + step, p.count - 1) });
  }

  // A `review` message: the analysis' progress, or its end.
  message(m) {
    const status = $("review-status");
    if (m.state === "running") {
      status.textContent = `analysing ${m.done}/${m.total}`;
      $("btn-review").textContent = "Cancel analysis";
    } else if (m.state === "cancelled") status.textContent = "analysis cancelled";
    else if (m.state === "failed") status.textContent = `the analysis failed: ${m.message}`;
  }

  // Each state: marks in the move list (drawn by movelist.js just before), buttons, arrows.
  show(state) {
    this.state = state;
    const r = state.review || { moves: [], running: false };
    const marks = { "?!": 0, "?": 0, "??": 0 };
    for (const rec of r.moves) {
      if (!rec.mark) continue;
      const span = document.querySelector(`#moves span[data-ply="${rec.ply + 1}"]`);
      const entry = state.record[rec.ply];
      if (!span || !entry || entry.text !== rec.move) continue;
      marks[rec.mark] += 1;
      span.classList.add("marked", KIND[rec.mark]);
      const g = document.createElement("small");
      g.className = "mark";
      g.textContent = rec.mark;
      span.appendChild(g);
      span.title = `${KIND[rec.mark]} (loses ${Math.round(rec.loss)} points): better ${rec.line.join(" ") || rec.best}` +
        " (click: the position before it, with the better line)";
    }
    $("btn-review").textContent = r.running ? "Cancel analysis" : "Analyse game";
    $("btn-review").setAttribute("aria-pressed", String(r.running));
    const status = $("review-status");
    if (r.running) status.textContent = `analysing ${r.done}/${r.total}`;
    else if (r.moves.length)
      status.textContent = `analysed: ${marks["??"]} blunders, ${marks["?"]} mistakes, ${marks["?!"]} inaccuracies`;
    else if (/^analys(ing|ed:)/.test(status.textContent)) status.textContent = "";
    $("btn-learn").disabled = !r.learn && !r.moves.some((x) => x.mark === "?" || x.mark === "??");
    $("btn-learn").textContent = r.learn ? "Stop learning" : "Learn from your mistakes";
    $("btn-shots").disabled = !r.moves.some((x) => x.shot && x.shot.length);
    const p = state.puzzle;
    $("puzzle-bar").hidden = !p;
    if (p) {
      $("puzzle-text").textContent = `Puzzle ${p.index + 1} of ${p.count}` + (p.solved ? ": solved" : "");
      $("btn-puzzle-next").disabled = p.index + 1 >= p.count;
    }
    this.arrows(state, r);
  }

  // The better line from the marked move clicked, while the board shows the position before it.
  arrows(state, r) {
    if (r.learn || state.puzzle) this.focus = null;     // no answers given away
    const f = this.focus;
    if (!f) return;
    if (state.ply !== f.ply) { if (f.shown) this.focus = null; return; }
    const rec = r.moves.find((x) => x.ply === f.ply);
    if (!rec) { this.focus = null; return; }
    f.shown = true;
    this.board.arrows = rec.arrows.map((a, i) => ({ ...a, rank: i + 1 }));
    this.board.draw();
    $("message").textContent = `${rec.move}${rec.mark} (${KIND[rec.mark] || "move"}): better ${rec.line.join(" ") || rec.best}`;
  }
}
