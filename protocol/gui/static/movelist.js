// The move list: numbered rows ("1. 32-28 19-23"), the shown move highlighted and kept in
// view, moves ahead (taken back, or of a loaded game) greyed.  Comments and variations of a
// loaded PDN (state.notes: {ply: {comment, nags, variations}}) are shown after their move:
// annotations as glyphs ("!?", "$14" as "⩲"), comments in italics, variations in brackets,
// each of their moves clickable.
const $ = (id) => document.getElementById(id);

// The usual NAGs as the glyphs printed in books; others stay as written ("$22").
const GLYPHS = { $1: "!", $2: "?", $3: "!!", $4: "??", $5: "!?", $6: "?!", $7: "□", $10: "=",
  $13: "∞", $14: "⩲", $15: "⩱", $16: "±", $17: "∓", $18: "+−", $19: "−+" };

export function glyphs(nags) {
  return (nags || []).map((n) => GLYPHS[n] || n).join(" ");
}

// The annotations of a move, after it (nothing when it has none).
function appendGlyphs(parent, nags) {
  const text = glyphs(nags);
  if (!text) return;
  const g = document.createElement("small");
  g.className = "nag";
  g.textContent = text;
  g.title = (nags || []).join(" ");
  parent.appendChild(g);
}

// Whether a note says more than its move's annotations (a comment, a variation).
function hasText(note) {
  return note && (note.comment || (note.variations || []).length || (note.unread || []).length);
}

// The move number and whether White's half opens it, for ply `i` (0-based) of a record that
// starts with `firstSide` to move ("white" or "black").
export function moveNumber(i, firstSide, firstMover = "white") {
  const late = firstSide === firstMover ? 0 : 1;
  return { number: Math.floor((i + late) / 2) + 1, opens: (i + late) % 2 === 0 };
}

// A variation (a list of PDN moves) numbered from ply `ply` of the game: "12. 32-28 19-23".
export function numbered(words, ply, sideToMove, mover = "white") {
  const start = ply % 2 === 0 ? sideToMove : (sideToMove === "white" ? "black" : "white");
  const out = [];
  words.forEach((w, j) => {
    const { number, opens } = moveNumber(ply + j, start, mover);
    if (opens) out.push(`${number}.`);
    else if (j === 0) out.push(`${number}...`);
    out.push(w);
  });
  return out.join(" ");
}

function startSide(m) {
  return m.first_ply_side === 0 || m.first_ply_side === "white" ? "white" : "black";
}

export function firstMover(m) { return m.first_mover || "white"; }

export function renderMoves(m, goto, playLine) {
  const list = $("moves");
  const keep = list.scrollTop;
  list.replaceChildren();
  const first = startSide(m);
  let row = null;
  const newRow = (number, dots) => {
    row = document.createElement("li");
    row.className = "row";
    const no = document.createElement("b");
    no.className = "no";
    no.textContent = `${number}.`;
    row.appendChild(no);
    if (dots) {
      const gap = document.createElement("i");
      gap.className = "gap";
      gap.textContent = "...";
      row.appendChild(gap);
    }
    list.appendChild(row);
  };
  if (m.notes && m.notes["0"]) appendNote(m.notes["0"], 0, m, first, playLine);
  m.record.forEach((r, i) => {
    const { number, opens } = moveNumber(i, first, firstMover(m));
    if (opens || !row) newRow(number, !opens);
    const span = document.createElement("span");
    span.textContent = r.text;
    span.dataset.ply = String(i + 1);
    span.tabIndex = 0;
    if (i + 1 === m.ply) span.className = "current";
    else if (!r.played) span.className = "future";
    span.addEventListener("click", () => goto(i + 1));
    span.addEventListener("keydown", (e) => { if (e.key === "Enter") goto(i + 1); });
    const note = m.notes && m.notes[String(i + 1)];
    if (note) appendGlyphs(span, note.nags);   // inside the move's cell: "28x19!?"
    row.appendChild(span);
    if (hasText(note)) {
      appendNote(note, i + 1, m, first, playLine);
      row = null;                          // the reply starts a row of its own: "12... 19-23"
    }
  });
  list.scrollTop = keep;
  const cur = list.querySelector("span.current");
  if (cur) {
    // #moves is positioned: offsetTop is measured from its top.
    const top = cur.offsetTop, bottom = top + cur.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top - 4;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight + 4;
  } else if (m.ply === 0) list.scrollTop = 0;
}

// A comment and the variations after the move of ply `ply` (ply 0: before the first move).
function appendNote(note, ply, m, first, playLine) {
  const box = document.createElement("li");
  box.className = "note";
  addNote(box, note, ply, [], m, first, playLine);
  $("moves").appendChild(box);
}

// The comment, then each variation in brackets: its moves (links that show the variation's
// position), their comments and nested variations.  `prefix`: the moves from the record's
// ply `ply - 1` that lead to where these variations branch off.
function addNote(box, note, ply, prefix, m, first, playLine) {
  if (note.comment) {
    const c = document.createElement("em");
    c.className = "comment";
    c.textContent = note.comment;
    box.appendChild(c);
    box.appendChild(document.createTextNode(" "));
  }
  (note.variations || []).forEach((line) => {
    const v = document.createElement("div");      // not a span: spans are the game's moves
    v.className = "variation";
    v.appendChild(document.createTextNode("("));
    const base = prefix.slice(0, -1);          // the variation replaces the last move
    const start = ply - 1 + base.length;        // 0-based ply of its first move
    line.forEach((w, j) => {
      const { number, opens } = moveNumber(start + j, first, firstMover(m));
      if (opens || j === 0 || (j > 0 && hasText(line[j - 1])))
        v.appendChild(document.createTextNode(`${number}.${opens ? "" : ".."} `));
      const a = document.createElement("a");
      a.className = "var-move";
      a.tabIndex = 0;
      a.textContent = w.text;
      a.title = "show this position (the game is unchanged)";
      const path = [...base, ...line.slice(0, j + 1).map((x) => x.text)];
      a.dataset.path = `${ply - 1}|${path.join(" ")}`;
      const show = () => playLine(ply - 1, path, a);
      a.addEventListener("click", show);
      a.addEventListener("keydown", (e) => { if (e.key === "Enter") show(); });
      v.appendChild(a);
      appendGlyphs(v, w.nags);
      v.appendChild(document.createTextNode(" "));
      if (hasText(w))
        addNote(v, w, ply, path, m, first, playLine);
    });
    v.lastChild.textContent = v.lastChild.textContent.trimEnd();
    v.appendChild(document.createTextNode(")"));
    box.appendChild(v);
    box.appendChild(document.createTextNode(" "));
  });
  for (const raw of note.unread || []) {
    const u = document.createElement("div");
    u.className = "variation unread";
    u.title = "a variation with a move that is not legal: kept as written";
    u.textContent = `(${raw})`;
    box.appendChild(u);
  }
}
