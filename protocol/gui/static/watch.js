// The watch page: a match or tournament followed live.  Every second it asks the server for
// the event's live state (/watch/state) and redraws the games in progress, the standings,
// the crosstable and the results.  Between two polls the clock of a running game's side to
// move counts down: from its time left at the last move, less the time since (the server's
// clock gives the time up to the poll, the page's own the rest).
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function drawBoard(board) {
  const size = 100 / board.width;
  const s = svg("svg", { viewBox: "0 0 100 100", role: "img", "aria-label": "board" });
  s.appendChild(svg("rect", { x: 0, y: 0, width: 100, height: 100, fill: "#eedcb3" }));
  for (const [row, col] of board.dark) {
    s.appendChild(svg("rect", { x: col * size, y: row * size, width: size, height: size, fill: "#7a5537" }));
  }
  for (const [row, col, piece] of board.pieces) {
    const white = piece.toLowerCase() === "w";
    const c = svg("circle", { cx: (col + 0.5) * size, cy: (row + 0.5) * size, r: size * 0.4,
                              fill: white ? "#fbf7ee" : "#2a2320", stroke: white ? "#555" : "#aaa",
                              "stroke-width": size * 0.05, class: `wpiece ${white ? "w" : "b"}` });
    s.appendChild(c);
    if (piece === piece.toUpperCase()) {
      s.appendChild(svg("circle", { cx: (col + 0.5) * size, cy: (row + 0.5) * size, r: size * 0.15,
                                    fill: "#e0a030" }));
    }
  }
  return s;
}

function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const s = Math.max(0, seconds);
  return s < 60 ? s.toFixed(1) : `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
}

let ticking = [];            // {clock element, game, seconds since its last move at the poll}
let polledAt = 0;           // performance.now() when the state arrived
let serverNow = null;       // the server's time then (seconds)

function since(g) {
  const at = Number(g.moved_at);
  if (serverNow === null || !Number.isFinite(at)) return 0;
  return Math.max(0, serverNow - at);
}

// Each clock as it stands now: the side to move's runs while its game goes on.
function tick() {
  const elapsed = (performance.now() - polledAt) / 1000;
  for (const { clock, game, since: before } of ticking) {
    const turn = game.result || !game.board ? null : game.board.turn;
    for (const side of ["white", "black"]) {
      const span = clock.querySelector(`.wc-${side}`);
      const base = Number(game.clock[side]);
      if (game.clock[side] === null || !Number.isFinite(base)) { span.textContent = ""; continue; }
      const left = base - (side === turn ? before + elapsed : 0);
      span.textContent = `${side === "white" ? "White" : "Black"} ${clockText(left)}`;
      span.classList.toggle("running", side === turn);
    }
  }
}

function showGames(games) {
  const box = $("watch-games");
  box.replaceChildren();
  ticking = [];
  const order = [...games].sort((a, b) => (a.result ? 1 : 0) - (b.result ? 1 : 0));   // running first
  for (const g of order) {
    const card = el("article", { class: "watch-game" + (g.result ? " over" : ""), "data-key": g.key });
    const h = el("h3");
    h.appendChild(el("span", {}, `${g.white} - ${g.black}`));
    if (g.result) h.appendChild(el("span", { class: "wresult", title: g.reason || "" }, g.result));
    card.appendChild(h);
    if (g.board) card.appendChild(drawBoard(g.board));
    if (g.clock) {
      const clock = el("div", { class: "wclock" });
      clock.appendChild(el("span", { class: "wc-white" }));
      clock.appendChild(el("span", { class: "wc-black" }));
      card.appendChild(clock);
      ticking.push({ clock, game: g, since: since(g) });
    }
    const moves = el("p", { class: "wmoves" });
    moves.textContent = g.moves.map((m, i) => (i % 2 === 0 ? `${i / 2 + 1}. ` : "") + m).join(" ");
    card.appendChild(moves);
    if (g.reason) card.appendChild(el("div", { class: "wreason" }, g.reason));
    box.appendChild(card);
    moves.scrollTop = moves.scrollHeight;
  }
  if (!games.length) box.appendChild(el("p", {}, "no game in progress"));
}

function showTables(data) {
  const body = $("standings").tBodies[0];
  body.replaceChildren();
  data.standings.forEach((r, i) => {
    const tr = el("tr");
    for (const v of [i + 1, r.name, r.points, r.games, r.wins, r.draws, r.losses, r.sb]) tr.appendChild(el("td", {}, String(v)));
    body.appendChild(tr);
  });
  const ct = data.crosstable;
  const head = el("tr");
  head.appendChild(el("th"));
  for (const n of ct.names) head.appendChild(el("th", {}, n));
  $("crosstable").tHead.replaceChildren(head);
  const cbody = $("crosstable").tBodies[0];
  cbody.replaceChildren();
  ct.rows.forEach((row, i) => {
    const tr = el("tr");
    tr.appendChild(el("td", {}, ct.names[i]));
    for (const cell of row) tr.appendChild(el("td", {}, cell));
    cbody.appendChild(tr);
  });
  const list = $("results");
  list.replaceChildren();
  for (const r of [...data.results].reverse().slice(0, 200)) {
    list.appendChild(el("li", {}, `${r.white} - ${r.black} ${r.result} (${r.reason}, ${r.plies} plies)`));
  }
}

async function poll() {
  try {
    const response = await fetch("/watch/state", { cache: "no-store" });
    const data = await response.json();
    if (data.error) {
      $("watch-error").textContent = data.error;
    } else {
      $("watch-error").textContent = "";
      $("watch-title").textContent = `${data.event} (${data.kind}, ${data.variant})` + (data.over ? ": over" : "");
      $("watch-progress").textContent = `${data.results.length} / ${data.planned} games`;
      polledAt = performance.now();
      serverNow = typeof data.now === "number" ? data.now : null;
      showGames(data.games);
      tick();
      showTables(data);
    }
  } catch (e) {
    $("watch-error").textContent = `the server does not answer (${e}): retrying`;
  }
  setTimeout(poll, 1000);
}
poll();
setInterval(tick, 100);
