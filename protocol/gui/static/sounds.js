// Move sounds, made with WebAudio (no sound files): a tick for a move, a double knock for a
// capture, a chord at the end of a game.  The audio context starts on the first gesture.
let ctx = null;

function context() {
  if (!ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    ctx = new Ctx();
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

function tone(ac, freq, start, length, volume = 0.15, type = "triangle") {
  const osc = ac.createOscillator();
  const gain = ac.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  const t = ac.currentTime + start;
  gain.gain.setValueAtTime(0, t);
  gain.gain.linearRampToValueAtTime(volume, t + 0.005);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
  osc.connect(gain).connect(ac.destination);
  osc.start(t);
  osc.stop(t + length + 0.02);
}

export function playSound(kind) {
  const ac = context();
  if (!ac) return;
  if (kind === "capture") { tone(ac, 330, 0, 0.09, 0.2, "square"); tone(ac, 247, 0.07, 0.12, 0.2, "square"); }
  else if (kind === "end") { for (const [i, f] of [523, 659, 784].entries()) tone(ac, f, i * 0.09, 0.5, 0.12); }
  else tone(ac, 620, 0, 0.07, 0.18);
}

// Browsers start audio only after a gesture: open the context on the first one.
export function unlockOnGesture() {
  const once = () => { context(); window.removeEventListener("pointerdown", once); window.removeEventListener("keydown", once); };
  window.addEventListener("pointerdown", once);
  window.addEventListener("keydown", once);
}
