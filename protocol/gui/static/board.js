// The board: an SVG drawing of the server's state, and move entry by drag-and-drop or
// clicks.  A capture whose squares are ambiguous is entered square by square: each
// click narrows the legal captures to those passing through the squares clicked so far.
const NS = "http://www.w3.org/2000/svg";
const CELL = 100;
const EDGE = 42;             // the margin that holds the coordinates

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Is `small` a subsequence of `big`?
function within(small, big) {
  let i = 0;
  for (const x of big) if (i < small.length && x === small[i]) i++;
  return i === small.length;
}

// Do the squares entered fit this path of landing squares?  They are passed in order;
// the last landing square (where a piece was dropped) may come first.
function fits(path, entered) {
  const end = path[path.length - 1];
  return within(entered, path) || within(entered.filter((q) => q !== end), path.slice(0, -1));
}

// How far along `path` the entered squares reach (index of the next square to enter).
function reached(path, entered) {
  let i = 0;
  for (const q of entered) {
    const j = path.indexOf(q, i);
    if (j >= 0 && j < path.length - 1) i = j + 1;
  }
  return i;
}

export class Board {
  constructor(svg, { onMove, onHint }) {
    this.svg = svg;
    this.onMove = onMove;          // (from, to, path) => void
    this.onHint = onHint;          // (text) => void
    this.flipped = false;
    this.numbers = false;          // square numbers inside the squares
    this.coords = true;            // coordinates at the board's edge
    this.animateMoves = true;
    this.arrows = [];              // [{from, to, path, rank, tone}]: analysis lines
    this.premove = null;           // {from, to}: the person's next move, queued
    this.premoveSide = null;       // "w" or "b": whose pieces may be premoved now
    this.preFrom = null;           // a premove's piece, picked
    this.onPremove = null;         // (premove or null) => void
    this.onEdit = null;            // (square, event) => void: the editor takes the clicks
    this.state = null;
    this.selected = null;          // square picked
    this.entered = [];             // landing squares clicked since
    this.drag = null;
    svg.addEventListener("pointerdown", (e) => this.down(e));
    svg.addEventListener("pointermove", (e) => this.moveDrag(e));
    svg.addEventListener("pointerup", (e) => this.up(e));
    svg.addEventListener("pointercancel", () => this.cancelDrag());
  }

  // ----- geometry ---------------------------------------------------------------------
  xy(square) {
    const [row, col] = this.state.coords[square];
    const w = this.state.width;
    const r = this.flipped ? w - 1 - row : row, c = this.flipped ? w - 1 - col : col;
    return [c * CELL + CELL / 2, r * CELL + CELL / 2];
  }

  squareAt(event) {
    const pt = this.svg.createSVGPoint();
    pt.x = event.clientX; pt.y = event.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    const w = this.state.width;
    let c = Math.floor(p.x / CELL), r = Math.floor(p.y / CELL);
    if (c < 0 || r < 0 || c >= w || r >= w) return null;
    if (this.flipped) { c = w - 1 - c; r = w - 1 - r; }
    for (const [sq, [row, col]] of Object.entries(this.state.coords))
      if (row === r && col === c) return Number(sq);
    return null;
  }

  piece(square) { return this.state.pieces[square - 1]; }

  // ----- drawing ----------------------------------------------------------------------
  set(state, animate = false) {
    const sameSpot = this.state && this.state.fen === state.fen;
    this.state = state;
    if (!sameSpot) { this.selected = null; this.entered = []; }
    this.draw();
    if (animate && this.animateMoves && state.last) this.animate(state.last);
  }

  canMove() {
    return this.state && this.state.moves.length > 0 && this.interactive;
  }

  movesFrom(square) {
    return this.state.moves.filter((m) => m.from === square);
  }

  draw() {
    const s = this.state, w = s.width, svg = this.svg;
    const m = this.coords ? EDGE : 0;
    svg.setAttribute("viewBox", `${-m} ${-m} ${w * CELL + 2 * m} ${w * CELL + 2 * m}`);
    svg.replaceChildren();
    if (this.coords) el("rect", { x: -m, y: -m, width: w * CELL + 2 * m, height: w * CELL + 2 * m,
                                  class: "frame" }, svg);
    const last = s.last;
    const lastSquares = last ? new Set([last.from, last.to]) : new Set();
    const targets = this.targets();
    for (let r = 0; r < w; r++)
      for (let c = 0; c < w; c++)
        el("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL,
                     class: (r + c) % 2 ? "sq-dark" : "sq-light" }, svg);
    // Turkish plays on every square: keep the board chequered.
    const full = Object.keys(s.coords).length === w * w;
    for (const sq of Object.keys(s.coords).map(Number)) {
      const [x, y] = this.xy(sq);
      const [r, c] = s.coords[sq];
      let cls = full && (r + c) % 2 === 0 ? "sq-light" : "sq-dark";
      if (targets.has(sq)) cls = "sq-target";
      else if (this.premove && (sq === this.premove.from || sq === this.premove.to)) cls = "sq-premove";
      else if (this.preFrom === sq) cls = "sq-premove";
      else if (lastSquares.has(sq)) cls = "sq-last";
      el("rect", { x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, class: cls,
                   "data-square": sq }, svg);
    }
    if (this.coords) this.drawCoords();
    if (last) {
      const pts = [last.from, ...last.path].map((q) => this.xy(q).join(",")).join(" ");
      el("polyline", { points: pts, class: "path" }, svg);
      for (const q of last.captured) this.drawPiece(q, last.pieces[q], true);
    }
    const movable = new Set(this.canMove() ? s.moves.map((m) => m.from) : []);
    for (let i = 0; i < s.pieces.length; i++) {
      if (s.pieces[i] === "e") continue;
      const g = this.drawPiece(i + 1, s.pieces[i], false);
      if (movable.has(i + 1)) g.classList.add("movable");
      if (this.selected === i + 1) g.classList.add("selected");
    }
    for (const q of targets) {
      const [x, y] = this.xy(q);
      el("circle", { cx: x, cy: y, r: 13, class: "dot" }, svg);
    }
    if (this.numbers)
      for (const sq of Object.keys(s.coords).map(Number)) {
        const [x, y] = this.xy(sq);
        const t = el("text", { x: x - CELL / 2 + 5, y: y - CELL / 2 + 19, class: "num" }, svg);
        t.textContent = s.names[sq];
      }
    this.drawArrows();
  }

  // Coordinates outside the board: the numbers of the edge squares (numbered variants), or
  // files and ranks (a1..h8).
  drawCoords() {
    const s = this.state, w = s.width, svg = this.svg;
    const algebraic = /^[a-z]/.test(s.names["1"] || "");
    const put = (x, y, text) => {
      const t = el("text", { x, y, class: "coord", "text-anchor": "middle", "dominant-baseline": "central" }, svg);
      t.textContent = text;
    };
    const half = EDGE / 2, far = w * CELL + half;
    if (algebraic) {              // every file and rank, whether its square is played on or not
      for (let i = 0; i < w; i++) {
        const mid = i * CELL + CELL / 2;
        put(mid, far, "abcdefghijkl"[this.flipped ? w - 1 - i : i]);
        put(-half, mid, String(this.flipped ? i + 1 : w - i));
      }
      return;
    }
    for (const sq of Object.keys(s.coords).map(Number)) {
      const [x, y] = this.xy(sq);
      const r = Math.floor(y / CELL), c = Math.floor(x / CELL);
      const name = s.names[sq];
      if (r === 0) put(x, -half, name);
      if (r === w - 1) put(x, far, name);
      if (c === 0) put(-half, y, name);
      if (c === w - 1) put(far, y, name);
    }
  }

  drawArrows() {
    if (!this.arrows.length) return;
    const svg = this.svg;
    const defs = el("defs", {}, svg);
    for (const tone of ["line", "win", "draw", "loss"]) {
      const mk = el("marker", { id: `head-${tone}`, viewBox: "0 0 10 10", refX: 5, refY: 5,
                                markerWidth: 3, markerHeight: 3, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", class: `head ${tone}` }, mk);
    }
    // The first line last, on top.
    for (const a of [...this.arrows].sort((p, q) => q.rank - p.rank)) {
      const pts = [a.from, ...(a.path || [a.to])].map((q) => this.xy(q));
      const [x0, y0] = pts[pts.length - 2], [x1, y1] = pts[pts.length - 1];
      const len = Math.hypot(x1 - x0, y1 - y0) || 1;
      pts[pts.length - 1] = [x1 - ((x1 - x0) / len) * 22, y1 - ((y1 - y0) / len) * 22];
      const tone = a.tone || "line";
      el("polyline", { points: pts.map((p) => p.join(",")).join(" "),
                       class: `arrow ${tone}${a.rank === 1 ? " first" : ""}`, "data-rank": a.rank,
                       "marker-end": `url(#head-${tone})` }, svg);
    }
  }

  drawPiece(square, kind, ghost) {
    const [x, y] = this.xy(square);
    const colour = kind.toLowerCase();
    const g = el("g", { class: `piece ${colour}${ghost ? " ghost" : ""}`, "data-piece": square,
                        transform: `translate(${x},${y})` }, this.svg);
    el("circle", { r: 38, class: "body" }, g);
    el("circle", { r: 26, fill: "none", class: "ring" }, g);
    if (kind === "W" || kind === "B") {
      el("path", { d: "M-18,8 L-20,-12 L-9,-2 L0,-16 L9,-2 L20,-12 L18,8 Z", class: "crown" }, g);
      g.setAttribute("data-king", "1");
    }
    if (ghost) {
      el("line", { x1: -26, y1: -26, x2: 26, y2: 26 }, g);
      el("line", { x1: 26, y1: -26, x2: -26, y2: 26 }, g);
    }
    return g;
  }

  animate(last) {
    const node = this.svg.querySelector(`g.piece:not(.ghost)[data-piece="${last.to}"]`);
    if (!node || !node.animate) return;
    const frames = [last.from, ...last.path].map((q) => {
      const [x, y] = this.xy(q);
      return { transform: `translate(${x}px,${y}px)` };
    });
    node.style.transformBox = "view-box";
    node.animate(frames, { duration: 160 * (frames.length - 1) + 80, easing: "ease-in-out" });
  }

  // ----- move entry -------------------------------------------------------------------
  // The (move, path) pairs still possible after the squares entered so far.
  candidates(extra = []) {
    const entered = [...this.entered, ...extra];
    const out = [];
    for (const m of this.movesFrom(this.selected))
      for (const p of m.paths)
        if (fits(p, entered)) out.push({ move: m, path: p });
    return out;
  }

  targets() {
    const t = new Set();
    if (this.selected === null) return t;
    for (const { path } of this.candidates()) {
      // The next square to click, and the end if it was not entered.
      const i = reached(path, this.entered);
      if (i < path.length - 1 && this.entered.length) t.add(path[i]);
      if (!this.entered.includes(path[path.length - 1])) t.add(path[path.length - 1]);
    }
    return t;
  }

  select(square) {
    this.selected = square;
    this.entered = [];
    this.draw();
  }

  // A square was clicked or a piece dropped there.
  to(square) {
    if (this.selected === null) return;
    const cands = this.candidates([square]);
    const moves = new Set(cands.map((c) => c.move));
    if (moves.size === 0) {
      if (this.movesFrom(square).length) this.select(square);
      else { this.selected = null; this.entered = []; this.draw(); }
      return;
    }
    if (moves.size === 1) {
      const { move, path } = cands[0];
      this.selected = null; this.entered = [];
      this.onMove(move.from, move.to, move.captured.length ? path : null);
      return;
    }
    this.entered.push(square);
    this.onHint("several captures fit: click the next square the capture passes through");
    this.draw();
  }

  // ----- premove: while the engine thinks, the person's next move is queued ---------------
  premoveClick(sq) {
    const own = (q) => q !== null && this.piece(q).toLowerCase() === this.premoveSide;
    if (this.premove) { this.setPremove(null); if (!own(sq)) return; }
    if (own(sq)) { this.preFrom = sq === this.preFrom ? null : sq; this.draw(); return; }
    if (this.preFrom !== null && sq !== null) {
      const from = this.preFrom;
      this.preFrom = null;
      this.setPremove({ from, to: sq });
      return;
    }
    this.preFrom = null;
    this.draw();
  }

  setPremove(p) {
    this.premove = p;
    this.preFrom = null;
    if (this.onPremove) this.onPremove(p);
    if (this.state) this.draw();
  }

  down(e) {
    if (this.onEdit) { const q = this.squareAt(e); if (q !== null) this.onEdit(q, e); return; }
    if (!this.canMove()) {
      if (this.premoveSide && this.state) this.premoveClick(this.squareAt(e));
      return;
    }
    const sq = this.squareAt(e);
    if (sq === null) return;
    if (this.selected !== null && sq !== this.selected && !this.movesFrom(sq).length) {
      this.to(sq);
      return;
    }
    if (!this.movesFrom(sq).length) {
      if (this.selected !== null) this.to(sq);
      return;
    }
    if (this.selected !== null && this.entered.length) { this.to(sq); return; }
    this.select(sq);
    const node = this.svg.querySelector(`g.piece:not(.ghost)[data-piece="${sq}"]`);
    this.drag = { square: sq, node, x: e.clientX, y: e.clientY, moved: false };
    this.svg.setPointerCapture(e.pointerId);
  }

  moveDrag(e) {
    const d = this.drag;
    if (!d || !d.node) return;
    if (Math.abs(e.clientX - d.x) + Math.abs(e.clientY - d.y) > 4) d.moved = true;
    if (!d.moved) return;
    const pt = this.svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    d.node.classList.add("dragging");
    d.node.setAttribute("transform", `translate(${p.x},${p.y})`);
    this.svg.appendChild(d.node);
  }

  up(e) {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    if (!d.moved) return;               // a click: the piece stays picked
    const sq = this.squareAt(e);
    if (sq === null || sq === d.square) { this.draw(); return; }
    this.to(sq);
    if (this.selected !== null) this.draw();
  }

  cancelDrag() { this.drag = null; this.draw(); }
}
