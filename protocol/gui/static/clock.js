// The clocks, the players' names and the game's end (resign, draw offers) on the page.
// The server keeps the time: each state says the times left and which clock runs; the page
// counts down between states so that the display ticks.
const $ = (id) => document.getElementById(id);

function format(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return s.toFixed(1);
  const whole = Math.ceil(s);
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), sec = whole % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? `${h}:` : "") + `${mm}:${String(sec).padStart(2, "0")}`;
}

export class Clocks {
  constructor(send) {
    this.send = send;
    this.state = null;
    this.at = 0;
    setInterval(() => this.tick(), 100);
    for (const side of ["white", "black"]) {
      const input = $(`name-${side}`);
      input.addEventListener("change", () => this.send({ type: "names", [side]: input.value }));
    }
    let confirming = null;         // resigning takes two clicks: the second confirms
    $("btn-resign").onclick = () => {
      if (confirming) {
        clearTimeout(confirming); confirming = null;
        $("btn-resign").textContent = "Resign";
        this.send({ type: "resign" });
        return;
      }
      $("btn-resign").textContent = "Sure? Resign";
      confirming = setTimeout(() => { confirming = null; $("btn-resign").textContent = "Resign"; }, 3000);
    };
    $("btn-draw").onclick = () => this.send({ type: "draw", action: "offer" });
    $("btn-draw-accept").onclick = () => this.send({ type: "draw", action: "accept" });
    $("btn-draw-decline").onclick = () => this.send({ type: "draw", action: "decline" });
  }

  show(m) {
    this.state = m;
    this.at = performance.now();
    const timed = m.clock && m.clock.control.kind !== "none";
    $("clocks").dataset.timed = timed ? "1" : "0";
    const toGo = timed && m.clock.control.kind === "moves" ? m.clock.to_go[m.turn] : null;
    $("clock-control").textContent = !timed ? "" :
      m.clock.describe + (toGo ? ` (${m.turn}: ${toGo} move${toGo > 1 ? "s" : ""} to the next period)` : "");
    for (const side of ["white", "black"]) {
      const input = $(`name-${side}`);
      const human = m.players[side].kind === "human";
      if (document.activeElement !== input) input.value = m.player_names[side];
      input.readOnly = !human;
      input.title = human ? "your name (in the PDN)" : "the engine's name (from its Hub id)";
    }
    const over = Boolean(m.outcome);
    const humans = ["white", "black"].filter((s) => m.players[s].kind === "human");
    $("btn-resign").disabled = over || humans.length === 0;
    $("btn-draw").disabled = over || humans.length === 0 || Boolean(m.draw_offer);
    const answering = Boolean(m.draw_offer) && !over;
    $("btn-draw-accept").hidden = !answering;
    $("btn-draw-decline").hidden = !answering;
    this.tick();
  }

  tick() {
    const m = this.state;
    if (!m || !m.clock) return;
    const gone = (performance.now() - this.at) / 1000;
    for (const side of ["white", "black"]) {
      const running = m.clock.ticking === side;
      const left = m.clock[side] - (running ? gone : 0);
      const el = $(`clock-${side}`);
      el.textContent = format(left);
      el.classList.toggle("running", running);
      el.classList.toggle("low", left < 10);
      el.classList.toggle("flagged", m.clock.flagged === side);
      el.setAttribute("datetime", `PT${Math.max(0, left).toFixed(1)}S`);
    }
  }
}

// The clock chosen in the New game dialog, as the server reads it.
export function chosenClock() {
  const kind = $("clock-kind").value;
  const num = (id) => Number($(id).value);
  if (kind === "fischer") return { kind, base: num("clock-base") * 60, inc: num("clock-inc") };
  if (kind === "sudden") return { kind, base: num("clock-base") * 60 };
  if (kind === "moves") return { kind, base: num("clock-base") * 60, moves: num("clock-moves"), inc: num("clock-inc") };
  if (kind === "movetime") return { kind, movetime: num("clock-movetime") };
  return { kind: "none" };
}

export function showClockFields() {
  const kind = $("clock-kind").value;
  const shown = { "clock-base-label": ["fischer", "sudden", "moves"], "clock-inc-label": ["fischer", "moves"],
                  "clock-moves-label": ["moves"], "clock-movetime-label": ["movetime"] };
  for (const [id, kinds] of Object.entries(shown)) $(id).hidden = !kinds.includes(kind);
}
