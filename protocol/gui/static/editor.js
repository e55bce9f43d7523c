// The board editor: pieces from a palette (white man, white king, black man, black king,
// eraser) onto squares, by click, by dragging over squares, or by dragging from the
// palette; the side to move; the FEN shown as it changes.  "Done" sends the position to
// the server, which checks it (protocol/gui/editor.py) and answers with a clear message
// when it refuses it; the editor stays open until the position is accepted.
const $ = (id) => document.getElementById(id);

export class Editor {
  constructor(board, send, onClose) {
    this.board = board;
    this.send = send;
    this.onClose = onClose;
    this.active = false;
    this.pending = null;      // the FEN sent, waiting for the server's state
    this.tool = "w";
    this.pieces = [];
    this.base = null;         // the state the editor started from
    this.painting = false;
    for (const b of document.querySelectorAll("#palette [data-tool]")) {
      b.addEventListener("pointerdown", (e) => { this.pick(b.dataset.tool); this.fromPalette = true; e.preventDefault(); });
      b.addEventListener("click", () => this.pick(b.dataset.tool));
    }
    document.addEventListener("pointerup", (e) => {
      if (this.fromPalette && this.active) {
        const sq = this.board.state ? this.squareUnder(e) : null;
        if (sq !== null) this.place(sq);
      }
      this.fromPalette = false;
      this.painting = false;
    });
    board.svg.addEventListener("pointermove", (e) => {
      if (this.active && this.painting && e.buttons) {
        const sq = this.squareUnder(e);
        if (sq !== null && sq !== this.lastPainted) this.place(sq);
      }
    });
    for (const r of document.querySelectorAll("input[name=editor-turn]")) r.addEventListener("change", () => this.show());
    $("editor-clear").onclick = () => { this.pieces.fill("e"); this.show(); };
    $("editor-start").onclick = () => { this.pieces = [...this.startPieces()]; this.show(); };
    $("editor-done").onclick = () => this.submit();
    $("editor-cancel").onclick = () => this.close();
    $("btn-editor").onclick = () => (this.active ? this.close() : this.open());
  }

  squareUnder(e) {
    try { return this.board.squareAt(e); } catch { return null; }
  }

  open() {
    const s = this.board.state;
    if (!s) return;
    this.base = s;
    this.pieces = [...s.pieces];
    this.active = true;
    this.pending = null;
    document.querySelector(`input[name=editor-turn][value=${s.turn}]`).checked = true;
    $("editor").hidden = false;
    $("btn-editor").setAttribute("aria-pressed", "true");
    document.body.classList.add("editing");
    this.board.onEdit = (sq) => { this.painting = true; this.place(sq); };
    this.pick(this.tool);
    this.show();
  }

  close() {
    this.active = false;
    this.pending = null;
    $("editor").hidden = true;
    $("editor-error").textContent = "";
    $("btn-editor").setAttribute("aria-pressed", "false");
    document.body.classList.remove("editing");
    this.board.onEdit = null;
    this.onClose();
  }

  pick(tool) {
    this.tool = tool;
    for (const b of document.querySelectorAll("#palette [data-tool]"))
      b.setAttribute("aria-pressed", String(b.dataset.tool === tool));
  }

  place(sq) {
    const i = sq - 1;
    // The same piece again clears the square (a second click undoes the first).
    this.pieces[i] = this.tool === "e" || (this.pieces[i] === this.tool && !this.painting) ? "e" : this.tool;
    this.lastPainted = sq;
    this.show();
  }

  turn() { return document.querySelector("input[name=editor-turn]:checked").value; }

  // The variant's start: White's men on the bottom rows, Black's on the top ones.
  startPieces() {
    const s = this.base, w = s.width;
    const full = Object.keys(s.coords).length === w * w;
    const rows = full ? 2 : w / 2 - 1;
    const first = full ? 1 : 0;
    return Object.keys(s.coords).map(Number).sort((a, b) => a - b).map((sq) => {
      const [r] = s.coords[sq];
      if (r >= first && r < first + rows) return "b";
      if (r <= w - 1 - first && r > w - 1 - first - rows) return "w";
      return "e";
    });
  }

  fen() {
    const s = this.base;
    const full = Object.keys(s.coords).length === s.width * s.width;
    const part = (colour) => this.pieces.map((p, i) => [p, i + 1])
      .filter(([p]) => p.toLowerCase() === colour)
      .map(([p, sq]) => (p === p.toUpperCase() ? "K" : "") + (full ? s.names[sq] : sq)).join(",");
    return `${this.turn() === "white" ? "W" : "B"}:W${part("w")}:B${part("b")}`;
  }

  show() {
    const s = this.base;
    this.board.arrows = [];
    this.board.set({ ...s, pieces: this.pieces.join(""), moves: [], last: null, turn: this.turn() });
    $("editor-fen").value = this.fen();
    $("editor-error").textContent = "";
  }

  submit() {
    this.pending = this.fen();
    $("editor-error").textContent = "";
    this.send({ type: "edit", pieces: this.pieces.join(""), turn: this.turn() });
  }

  // The server's answers while the editor is open: a refusal is shown in the editor; a
  // state is shown on the board only once the editor has closed (false: show it).
  refused(message) {
    if (!this.active) return false;
    $("editor-error").textContent = message;
    this.pending = null;
    return true;
  }

  accepted(state) {
    if (this.active && this.pending !== null && state.fen === this.pending && state.ply === 0) {
      this.close();
      return false;
    }
    return this.active;       // while editing, the board shows the editor's pieces
  }
}
