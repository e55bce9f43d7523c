// The evaluation over the game: score axis (men, White's view, clipped at +-5, a 0 line),
// move axis, the shown move marked, the move under the cursor named, a click goes there.
// Drawn from the start, before any score exists.
const NS = "http://www.w3.org/2000/svg";
const W = 320, H = 110, LEFT = 26, RIGHT = 6, TOP = 6, BOTTOM = 18, CLIP = 5;

function el(name, attrs, parent, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}

export class EvalGraph {
  constructor(svg, { onGoto, moveLabel }) {
    this.svg = svg;
    this.onGoto = onGoto;          // (ply) => void
    this.moveLabel = moveLabel;    // (ply) => "12. 32-28"
    this.state = null;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.addEventListener("pointermove", (e) => this.hover(e));
    svg.addEventListener("pointerleave", () => this.hover(null));
    svg.addEventListener("click", (e) => { const p = this.plyAt(e); if (p !== null) this.onGoto(p); });
  }

  total() { return Math.max(this.state ? this.state.record.length : 0, 1); }
  x(ply) { return LEFT + (ply / this.total()) * (W - LEFT - RIGHT); }
  y(score) { return TOP + ((CLIP - Math.max(-CLIP, Math.min(CLIP, score))) / (2 * CLIP)) * (H - TOP - BOTTOM); }

  plyAt(e) {
    if (!this.state) return null;
    const pt = this.svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    const ply = Math.round(((p.x - LEFT) / (W - LEFT - RIGHT)) * this.total());
    return Math.max(0, Math.min(this.state.record.length, ply));
  }

  draw(state) {
    this.state = state;
    const g = this.svg;
    g.replaceChildren();
    el("rect", { x: LEFT, y: TOP, width: W - LEFT - RIGHT, height: H - TOP - BOTTOM, class: "g-area" }, g);
    el("rect", { x: LEFT, y: this.y(0), width: W - LEFT - RIGHT, height: this.y(-CLIP) - this.y(0), class: "g-black" }, g);
    for (const s of [CLIP, 2.5, 0, -2.5, -CLIP]) {
      el("line", { x1: LEFT, x2: W - RIGHT, y1: this.y(s), y2: this.y(s), class: s === 0 ? "g-zero" : "g-grid" }, g);
      if (s % 5 === 0) el("text", { x: LEFT - 3, y: this.y(s), class: "g-label", "text-anchor": "end",
                                    "dominant-baseline": "central" }, g, s > 0 ? `+${s}` : String(s));
    }
    // The move axis: a tick every few moves.
    const total = this.total(), moves = Math.ceil(total / 2);
    const step = [1, 2, 5, 10, 20, 50, 100].find((k) => moves / k <= 8) || 200;
    for (let mv = 0; mv <= moves; mv += step) {
      const x = this.x(Math.min(mv * 2, total));
      el("line", { x1: x, x2: x, y1: H - BOTTOM, y2: H - BOTTOM + 3, class: "g-tick" }, g);
      el("text", { x, y: H - 4, class: "g-label", "text-anchor": "middle" }, g, String(mv));
    }
    const pts = Object.entries(state.evals).map(([p, v]) => [Number(p), v]).sort((a, b) => a[0] - b[0]);
    if (pts.length) {
      const line = pts.map(([p, v]) => `${this.x(p).toFixed(1)},${this.y(v).toFixed(1)}`).join(" ");
      el("polygon", { points: `${this.x(pts[0][0])},${this.y(0)} ${line} ${this.x(pts[pts.length - 1][0])},${this.y(0)}`,
                      class: "g-fill" }, g);
      el("polyline", { points: line, class: "g-line" }, g);
    }
    const x = this.x(state.ply);
    el("line", { x1: x, x2: x, y1: TOP, y2: H - BOTTOM, class: "g-now" }, g);
    this.cursor = el("g", { class: "g-cursor", visibility: "hidden" }, g);
    el("line", { y1: TOP, y2: H - BOTTOM, x1: 0, x2: 0 }, this.cursor);
    el("text", { x: 0, y: TOP + 9, class: "g-tip" }, this.cursor);
  }

  hover(e) {
    if (!this.cursor) return;
    const ply = e ? this.plyAt(e) : null;
    if (ply === null) { this.cursor.setAttribute("visibility", "hidden"); this.svg.removeAttribute("data-hover"); return; }
    const x = this.x(ply);
    const [line, text] = this.cursor.children;
    line.setAttribute("x1", x); line.setAttribute("x2", x);
    const v = this.state.evals[String(ply)];
    const label = (ply === 0 ? "start" : this.moveLabel(ply)) + (v === undefined ? "" : `  ${v >= 0 ? "+" : ""}${v.toFixed(2)}`);
    text.textContent = label;
    const right = x > W / 2;
    text.setAttribute("x", right ? x - 4 : x + 4);
    text.setAttribute("text-anchor", right ? "end" : "start");
    this.cursor.setAttribute("visibility", "visible");
    this.svg.dataset.hover = String(ply);
  }
}
