// The page: one WebSocket to Rafle's server, the board, the panels.  The server holds
// the game and decides every rule; the page shows its state and sends requests.
import { Board } from "./board.js";
import { Clocks, chosenClock, showClockFields } from "./clock.js";
import { adopt, keep, savedCopy, socketUrl } from "./store.js";

const $ = (id) => document.getElementById(id);
let ws = null;
let state = null;
let replayTimer = null;
let setup = null;
let engineClock = null;     // the seconds counter while the engine starts

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  else showError("not connected to the server: reconnecting...");
}

function showError(text) { $("error").textContent = text; }

const board = new Board($("board"), {
  onMove: (from, to, path) => {
    const m = { type: "move", from, to };
    if (path) m.path = path;
    send(m);
  },
  onHint: (text) => { $("message").textContent = text; },
});
const clocks = new Clocks(send);

// ----- messages from the server ---------------------------------------------------------
const handlers = {
  setup(m) {
    setup = m;
    adopt(m.game);                      // the address names the game (store.js)
    const copy = m.known ? null : savedCopy(m.game);
    if (copy) send({ type: "restore", saved: copy });   // a server that lost it gets it back
    const sel = $("new-variant");
    sel.replaceChildren();
    for (const v of m.variants) {
      const o = document.createElement("option");
      o.value = v.name; o.textContent = `${v.name} (${v.width}x${v.width})`;
      sel.appendChild(o);
    }
    const dl = $("levels");
    dl.replaceChildren();
    for (const name of [...m.levels, "depth 6", "time 1", "time 5"]) {
      const o = document.createElement("option"); o.value = name; dl.appendChild(o);
    }
  },
  state(m) {
    const animate = state && m.ply === state.ply + 1 && m.last &&
      state.record.length >= 0 && m.variant === state.variant;
    state = m;
    keep(m);
    clocks.show(m);
    board.interactive = isHumanTurn(m);
    board.set(m, animate);
    showState(m);
  },
  info(m) {
    $("info-depth").textContent = m.depth ? `depth ${m.depth}` : "";
    $("info-score").textContent = m.score !== "" ? `score ${m.score}` : "";
    $("info-nps").textContent = m.nps ? `${Math.round(m.nps / 1000)} kN/s` : "";
    $("info-pv").textContent = m.pv;
    if (m.white !== null && state) {
      state.evals[String(m.ply)] = m.white;
      drawEval(state);
    }
  },
  engine(m) {
    const text = { idle: "not started", starting: "starting...", ready: "ready", failed: "failed" }[m.state] || m.state;
    const name = m.name || "engine";
    $("engine-status").textContent = `${name}: ${text}`;
    clearInterval(engineClock);
    if (m.state === "starting") {
      // A first run compiles the engine (about a minute): count the seconds so the page
      // shows it is working, and say why after a few.
      const since = Date.now();
      engineClock = setInterval(() => {
        const s = Math.round((Date.now() - since) / 1000);
        $("engine-status").textContent = s < 3 ? `${name}: starting...` :
          `${name}: starting, ${s} s (a first run compiles the engine: about a minute)`;
      }, 1000);
    }
    $("engine-fail").hidden = m.state !== "failed";
    $("engine-fail-text").textContent = m.state === "failed" ? `The engine failed: ${m.message}` : "";
  },
  pdn(m) {
    const blob = new Blob([m.text], { type: "application/x-pdn" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = m.filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 5000);
  },
  error(m) { showError(m.message); },
};

function isHumanTurn(m) {
  if (m.outcome) return false;
  if (m.task && m.task.mode === "think") return false;
  return m.players[m.turn].kind === "human" || !m.running;
}

function showState(m) {
  showError("");
  const who = m.turn === "white" ? "White" : "Black";
  let status;
  if (m.outcome) status = `Game over. ${m.outcome.text}`;
  else if (m.task && m.task.mode === "think") status = `${who} to move: the engine is thinking (${m.task.level})`;
  else status = `${who} to move` + (m.players[m.turn].kind === "engine" && !m.running ? " (engine paused: Engine move or Play)" : "");
  $("status").textContent = status;
  $("message").textContent = m.message || "";
  if (!m.task) for (const id of ["info-depth", "info-score", "info-nps", "info-pv"]) $(id).textContent = "";
  $("btn-stop").disabled = !m.task;
  $("btn-undo").disabled = m.ply === 0;
  $("btn-redo").disabled = m.ply >= m.record.length;
  $("btn-play").textContent = m.running ? "Pause" : "Play";
  $("btn-analyze").setAttribute("aria-pressed", String(m.analysing));
  $("move-input").disabled = !isHumanTurn(m);
  const list = $("moves");
  list.replaceChildren();
  let li = null;
  m.record.forEach((r, i) => {
    if (!li || r.side === m.first_ply_side || i === 0) {
      li = document.createElement("li");
      list.appendChild(li);
    }
    const span = document.createElement("span");
    span.textContent = r.text;
    span.dataset.ply = String(i + 1);
    span.tabIndex = 0;
    if (i + 1 === m.ply) span.className = "current";
    else if (!r.played) span.className = "future";
    span.addEventListener("click", () => send({ type: "goto", ply: i + 1 }));
    span.addEventListener("keydown", (e) => { if (e.key === "Enter") send({ type: "goto", ply: i + 1 }); });
    li.appendChild(span);
    li.appendChild(document.createTextNode(" "));
  });
  const cur = list.querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
  drawEval(m);
}

function drawEval(m) {
  // The latest evaluation at or before the shown ply.
  let score;
  for (let p = m.ply; p >= 0 && score === undefined; p--) score = m.evals[String(p)];
  const clamp = (x) => Math.max(-5, Math.min(5, x));
  const white = score === undefined ? 0 : clamp(score);
  $("evalbar-fill").style.height = `${50 + white * 10}%`;
  $("evalbar-text").textContent = score === undefined ? "" : (score >= 0 ? "+" : "") + score.toFixed(2);
  const g = $("graph");
  g.replaceChildren();
  const total = Math.max(m.record.length, 1);
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  for (const [k, v] of Object.entries({ x1: 0, y1: 50, x2: 300, y2: 50, stroke: "#aaa" })) line.setAttribute(k, v);
  g.appendChild(line);
  const pts = Object.entries(m.evals).map(([ply, v]) => [Number(ply), clamp(v)]).sort((a, b) => a[0] - b[0])
    .map(([ply, v]) => `${(ply / total) * 300},${50 - v * 10}`);
  if (pts.length) {
    const pl = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    pl.setAttribute("points", pts.join(" "));
    pl.setAttribute("fill", "none");
    pl.setAttribute("stroke", "#b5651d");
    pl.setAttribute("stroke-width", "2");
    g.appendChild(pl);
  }
  const mark = document.createElementNS("http://www.w3.org/2000/svg", "line");
  const x = (m.ply / total) * 300;
  for (const [k, v] of Object.entries({ x1: x, y1: 0, x2: x, y2: 100, stroke: "#3a7" })) mark.setAttribute(k, v);
  g.appendChild(mark);
}

// ----- requests -----------------------------------------------------------------------
function navigate(ply) {
  if (!state) return;
  const target = Math.max(0, Math.min(state.record.length, ply));
  if (target !== state.ply) send({ type: "goto", ply: target });
}

function replay() {
  if (replayTimer) { clearInterval(replayTimer); replayTimer = null; $("btn-replay").innerHTML = "&#9654;"; return; }
  if (state && state.ply >= state.record.length) navigate(0);
  $("btn-replay").textContent = "||";
  replayTimer = setInterval(() => {
    if (!state || state.ply >= state.record.length) { replay(); return; }
    navigate(state.ply + 1);
  }, 900);
}

$("btn-new").onclick = () => {
  if (state) $("new-variant").value = state.variant;
  $("new-dialog").showModal();
};
$("clock-kind").onchange = showClockFields;
$("new-delay").oninput = () => { $("new-delay-out").textContent = $("new-delay").value; };
$("new-form").addEventListener("submit", (e) => {
  if (e.submitter && e.submitter.value !== "start") return;
  const kind = (side) => document.querySelector(`input[name=${side}-kind]:checked`).value;
  send({ type: "speed", delay: Number($("new-delay").value) });
  send({ type: "new", variant: $("new-variant").value, fen: $("new-fen").value.trim(),
         white: { kind: kind("white"), level: $("white-level").value.trim() || "medium" },
         black: { kind: kind("black"), level: $("black-level").value.trim() || "medium" },
         clock: chosenClock() });
});
$("btn-undo").onclick = () => send({ type: "undo" });
$("btn-redo").onclick = () => send({ type: "redo" });
$("btn-go").onclick = () => send({ type: "go" });
$("btn-stop").onclick = () => send({ type: "stop" });
$("btn-play").onclick = () => send({ type: "play", on: !(state && state.running) });
$("btn-analyze").onclick = () => send({ type: "analyze", on: !(state && state.analysing) });
$("btn-flip").onclick = () => { board.flipped = !board.flipped; if (state) board.draw(); };
$("btn-numbers").onclick = () => {
  board.numbers = !board.numbers;
  $("btn-numbers").setAttribute("aria-pressed", String(board.numbers));
  if (state) board.draw();
};
$("btn-start").onclick = () => navigate(0);
$("btn-back").onclick = () => state && navigate(state.ply - 1);
$("btn-fwd").onclick = () => state && navigate(state.ply + 1);
$("btn-end").onclick = () => state && navigate(state.record.length);
$("btn-replay").onclick = replay;
$("btn-save").onclick = () => send({ type: "save" });
$("btn-restart").onclick = () => send({ type: "restart" });
$("btn-copy-fen").onclick = async () => {
  if (!state) return;
  $("fen-input").value = state.fen;
  try { await navigator.clipboard.writeText(state.fen); $("message").textContent = "FEN copied"; }
  catch { $("message").textContent = "FEN shown in the set-up box"; }
};
$("fen-form").addEventListener("submit", (e) => {
  e.preventDefault();
  send({ type: "fen", fen: $("fen-input").value });
});
$("move-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("move-input").value.trim();
  if (text) send({ type: "move", text });
  $("move-input").value = "";
});
$("pdn-file").addEventListener("change", async () => {
  const file = $("pdn-file").files[0];
  if (!file) return;
  if (file.size > 1_000_000) { showError("that file is too big for a PDN game (over 1 MB)"); return; }
  send({ type: "load", text: await file.text() });
  $("pdn-file").value = "";
});
document.addEventListener("keydown", (e) => {
  if (e.target.closest("input, select, textarea, dialog")) return;
  const keys = { ArrowLeft: () => state && navigate(state.ply - 1), ArrowRight: () => state && navigate(state.ply + 1),
                 Home: () => navigate(0), End: () => state && navigate(state.record.length),
                 n: () => $("btn-new").click(), u: () => send({ type: "undo" }), r: () => send({ type: "redo" }),
                 g: () => send({ type: "go" }), s: () => send({ type: "stop" }), f: () => $("btn-flip").click(),
                 a: () => $("btn-analyze").click(), m: () => $("move-input").focus() };
  const act = keys[e.key];
  if (act && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); act(); }
});

// ----- the connection -----------------------------------------------------------------
function connect() {
  ws = new WebSocket(socketUrl());     // the server opens the game the address names
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    const h = handlers[m.type];
    if (h) h(m);
  };
  ws.onopen = () => {
    document.body.dataset.connected = "1";
  };
  ws.onclose = (ev) => {
    document.body.dataset.connected = "0";
    if (ev.code === 4001) {            // the game moved to another page: do not take it back
      showError("this game is open in another tab or window: reload this page to play it here");
      board.interactive = false;
      return;
    }
    showError("connection to Rafle lost: reconnecting (the game is kept; Save PDN works once back)");
    setTimeout(connect, 1500);
  };
}
connect();
