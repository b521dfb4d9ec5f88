// The page of `chess-envs serve`: one WebSocket, an SVG board drawn from the server's state.
"use strict";

const SQ = 40;
const SEAT_COLOURS = { 2: ["#ffffff", "#222222"], 4: ["#d33", "#36c", "#e6b800", "#2a2"] };
const SEAT_NAMES = { 2: ["White", "Black"], 4: ["Red", "Blue", "Yellow", "Green"] };
const token = new URLSearchParams(location.search).get("token");
let socket = null, hello = null, view = null, flipped = false, selected = null, drag = null, pgnWanted = false;
let received = 0;  // when the last state came: the running clock counts down from it
let watching = null, replayGame = null;  // the tournament watched, the id of the game replayed

const $ = (id) => document.getElementById(id);

function connect() {
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws${query}`);
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => { $("status").textContent = "Disconnected: reconnecting..."; setTimeout(connect, 1000); };
}

function send(message) { socket.send(JSON.stringify(message)); }

function receive(message) {
  if (message.type === "hello") {
    hello = message;
    fillSetup();
    $("watch-label").hidden = !message.tournaments.length;
    for (const name of message.tournaments) $("watch").add(new Option(name, name));
    const saved = sessionStorage.getItem("session");
    if (saved) send({ type: "resume", session: saved });
  } else if (message.type === "state") {
    view = message;
    received = performance.now();
    selected = null;
    sessionStorage.setItem("session", message.session);
    $("error").textContent = "";
    draw();
  } else if (message.type === "pgn") {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([message.text], { type: "application/x-chess-pgn" }));
    link.download = message.game === "four_player" ? "game.pgn4" : "game.pgn";
    link.id = "pgn-link";
    document.body.appendChild(link);
    link.dataset.text = message.text;
    if (pgnWanted) link.click();
  } else if (message.type === "tournament") {
    const list = $("tournament-games");
    list.innerHTML = "";
    const show = (game, text, className) => {
      const item = document.createElement("li");
      item.textContent = text;
      item.className = className;
      item.onclick = () => { replayGame = game.id; send({ type: "replay", tournament: watching, id: game.id }); };
      list.appendChild(item);
    };
    for (const game of message.live) show(game, `playing: ${game.players.join(" - ")} (${game.plies} plies)`, "tournament-live");
    for (const game of message.games) {
      show(game, `${game.players.join(" - ")}: ${game.scores.join("-")} (${game.termination}, ${game.plies} plies)`, "tournament-game");
    }
  } else if (message.type === "error") {
    $("error").textContent = message.error;
    if (String(message.error).startsWith("no such game")) sessionStorage.removeItem("session");
  }
}

function fillSetup() {
  const game = $("game");
  const current = game.value;
  game.innerHTML = "";
  for (const name of Object.keys(hello.games)) game.add(new Option(name, name));
  if (current) game.value = current;
  fillSeats();
}

function fillSeats() {
  const info = hello.games[$("game").value];
  const seats = $("seats");
  seats.innerHTML = "";
  const names = SEAT_NAMES[info.players] || [];
  for (let seat = 0; seat < info.players; seat++) {
    const label = document.createElement("label");
    label.textContent = `${names[seat] || "Seat " + seat} `;
    const select = document.createElement("select");
    select.className = "seat";
    select.id = `seat-${seat}`;
    select.add(new Option("human", "human"));
    for (const agent of info.agents) select.add(new Option(agent, agent));
    label.appendChild(select);
    seats.appendChild(label);
  }
  const modes = info.options.mode;
  $("mode-label").hidden = !modes;
  $("mode").innerHTML = "";
  for (const mode of modes || []) $("mode").add(new Option(mode, mode));
  defaultSeats();
}

// The agents' seats start with the shipped network of the game and mode (@four_player_teams in
// four-player Teams, else @four_player), else the first network offered. An agent that plays under
// some game options only (a Teams network, 4pchess) cannot be chosen under others.
function defaultSeats() {
  const game = $("game").value, info = hello.games[game];
  const fits = (a) => Object.entries(info.plays_only[a] || {}).every(([name, value]) => $(name).value === value);
  const agents = info.agents.filter(fits);
  const shipped = (name) => agents.find((a) => new RegExp(`@${name}(\\?|$)`).test(a));
  const mode = info.options.mode ? $("mode").value : null;
  const agent = (mode && shipped(`${game}_${mode}`)) || shipped(game) || agents.find((a) => a.includes("@"));
  document.querySelectorAll(".seat").forEach((select, seat) => {
    for (const option of select.options) option.disabled = option.value !== "human" && !fits(option.value);
    select.value = seat === 0 ? "human" : agent || agents[0] || "human";
  });
}

function newGame(event) {
  event.preventDefault();
  const game = $("game").value;
  const seats = [...document.querySelectorAll(".seat")].map((s) => s.value);
  const options = hello.games[game].options.mode ? { mode: $("mode").value } : {};
  const fen = $("fen").value.trim(), clock = $("clock").value.trim();
  send({ type: "new", game, seats, options, fen: fen || null, clock: clock || null });
}

// -- drawing --------------------------------------------------------------------------------

function toView(r, c) {
  const h = view.cells.length, w = view.cells[0].length;
  return flipped ? [h - 1 - r, w - 1 - c] : [r, c];
}

function el(name, attrs, parent) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function draw() {
  const board = $("board");
  const h = view.cells.length, w = view.cells[0].length;
  board.setAttribute("viewBox", `0 0 ${w * SQ + 16} ${h * SQ + 16}`);
  board.innerHTML = "";
  const grid = el("g", { transform: "translate(16,0)" }, board);
  const targets = selected ? view.legal.filter((m) => same(m.from, selected)).map((m) => m.to) : [];
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      const [vr, vc] = toView(r, c);
      const cell = view.cells[r][c];
      let cls = cell === false ? "off" : (r + c) % 2 === 0 ? "light" : "dark";
      const rect = el("rect", { x: vc * SQ, y: vr * SQ, width: SQ, height: SQ, class: cls,
        "data-square": `${r},${c}` }, grid);
      if (selected && same(selected, [r, c])) el("rect", { x: vc * SQ, y: vr * SQ, width: SQ, height: SQ, class: "selected" }, grid);
      if (targets.some((t) => same(t, [r, c]))) el("circle", { cx: vc * SQ + SQ / 2, cy: vr * SQ + SQ / 2, r: SQ / 6, class: "target" }, grid);
      if (Array.isArray(cell)) drawPiece(grid, cell, vr, vc);
      rect.addEventListener("pointerdown", (e) => press(e, r, c));
    }
  }
  for (let r = 0; r < h; r++) {  // coordinates: ranks on the left, files below
    const [vr] = toView(r, 0);
    el("text", { x: 2, y: vr * SQ + SQ / 2, class: "coord" }, board).textContent = String(h - r);
  }
  for (let c = 0; c < w; c++) {
    const [, vc] = toView(0, c);
    el("text", { x: 16 + vc * SQ + SQ / 2 - 3, y: h * SQ + 12, class: "coord" }, board).textContent = "abcdefghijklmn"[c];
  }
  if (view.analysis) drawArrows(grid);
  showSide();
}

function drawPiece(grid, [letter, seat], vr, vc) {
  const colours = SEAT_COLOURS[view.seats.length] || SEAT_COLOURS[2];
  const out = view.eliminated && view.eliminated[seat];
  const g = el("g", { class: "piece" + (out ? " out" : ""), "data-seat": seat }, grid);
  el("circle", { cx: vc * SQ + SQ / 2, cy: vr * SQ + SQ / 2, r: SQ * 0.38, fill: colours[seat] }, g);
  const dark = view.seats.length === 2 ? seat === 1 : seat !== 2;
  el("text", { x: vc * SQ + SQ / 2, y: vr * SQ + SQ / 2, fill: dark ? "#fff" : "#111", "font-size": SQ * 0.45 }, g)
    .textContent = letter.toUpperCase();
  g.style.pointerEvents = "none";
}

function drawArrows(grid) {
  const defs = el("defs", {}, grid);
  const marker = el("marker", { id: "head", markerWidth: 4, markerHeight: 4, refX: 2, refY: 2, orient: "auto" }, defs);
  el("path", { d: "M0,0 L4,2 L0,4 z", class: "arrow" }, marker);
  view.analysis.arrows.forEach((arrow) => {  // thicker for a larger share of the search's visits
    const [fr, fc] = toView(...arrow.from), [tr, tc] = toView(...arrow.to);
    el("line", { x1: fc * SQ + SQ / 2, y1: fr * SQ + SQ / 2, x2: tc * SQ + SQ / 2, y2: tr * SQ + SQ / 2,
      class: "arrow", "stroke-width": 2 + 8 * arrow.share, "marker-end": "url(#head)", opacity: 0.4 + 0.6 * arrow.share },
    grid);
    el("text", { x: tc * SQ + 2, y: tr * SQ + 10, class: "coord share" }, grid).textContent =
      `${Math.round(100 * arrow.share)}%`;
  });
}

function showSide() {
  const names = SEAT_NAMES[view.seats.length] || [];
  let status;
  if (view.result) {
    const scores = view.result.scores.map((s, i) => `${names[i]} ${s}`).join(", ");
    status = `Game over: ${view.result.termination} (${scores})`;
  } else if (view.human_to_move) {
    status = `Your move (${names[view.to_move]})`;
  } else {
    status = `${names[view.to_move]} (${view.seats[view.to_move]}) is thinking...`;
  }
  if (view.live) status = `Live, ply ${view.ply}: ${names[view.to_move]} (${view.seats[view.to_move]}) to move`;
  else if (view.replay) status = `Replay, ply ${view.ply}: ${view.result ? view.result.termination : "..."}`;
  $("status").textContent = status;
  $("replay-nav").hidden = !view.replay || view.live;
  $("status").dataset.result = view.result ? view.result.termination : "";
  const moves = $("moves");
  moves.innerHTML = "";
  const per = view.seats.length;
  for (let i = 0; i < view.moves.length; i += per) {
    const item = document.createElement("li");
    item.textContent = view.moves.slice(i, i + per).join(per === 4 ? " .. " : " ");
    moves.appendChild(item);
  }
  moves.scrollTop = moves.scrollHeight;
  $("standings").innerHTML = view.standings
    ? view.standings.map((s, i) => `<div style="color:${SEAT_COLOURS[4][i]}">${names[i]}: ${view.seats[i]} ${
      view.eliminated[i] ? "(out)" : ""} ${s}</div>`).join("") : "";
  const analysis = view.analysis;
  if (analysis) {
    const white = view.seats.length === 2 && analysis.mover === 1 ? -analysis.value : analysis.value;
    $("eval-fill").style.height = `${50 * (1 + white)}%`;
    $("analysis").textContent = `${names[analysis.mover]}'s search: value ${analysis.value.toFixed(2)}, ` +
      `${analysis.nodes} nodes; line ${analysis.pv.join(" ")}`;
  } else {
    $("eval-fill").style.height = "50%";
    $("analysis").textContent = "";
  }
}

function showClocks() {
  if (!view || !view.clocks) { $("clocks").textContent = ""; return; }
  const names = SEAT_NAMES[view.seats.length] || [];
  $("clocks").innerHTML = view.clocks.map((left, seat) => {
    const running = seat === view.to_move && !view.result;
    const now = Math.max(0, left - (running ? (performance.now() - received) / 1000 : 0));
    const text = `${Math.floor(now / 60)}:${(now % 60).toFixed(1).padStart(4, "0")}`;
    return `<div class="clock${running ? " running" : ""}" data-seat="${seat}">${names[seat]} ${text}</div>`;
  }).join("");
}

setInterval(showClocks, 100);

// -- moving -----------------------------------------------------------------------------------

function same(a, b) { return a[0] === b[0] && a[1] === b[1]; }

function squareAt(event) {
  const target = document.elementFromPoint(event.clientX, event.clientY);
  const square = target && target.getAttribute && target.getAttribute("data-square");
  return square ? square.split(",").map(Number) : null;
}

function press(event, r, c) {
  if (!view || !view.human_to_move) return;
  if (selected && view.legal.some((m) => same(m.from, selected) && same(m.to, [r, c]))) {
    choose(selected, [r, c]);
    return;
  }
  const cell = view.cells[r][c];
  if (Array.isArray(cell) && cell[1] === view.to_move) drag = [r, c];  // dragged anywhere: checked on release
  if (view.legal.some((m) => same(m.from, [r, c]))) {
    selected = [r, c];
    draw();
  } else if (selected) {
    selected = null;
    draw();
  }
}

function release(event) {
  if (!drag) return;
  const from = drag;
  drag = null;
  const to = squareAt(event);
  if (!to || same(to, from)) return;  // a click: the selection stays
  if (view.legal.some((m) => same(m.from, from) && same(m.to, to))) choose(from, to);
  else {
    $("error").textContent = "illegal move";
    selected = null;
    draw();
  }
}

function choose(from, to) {
  const moves = view.legal.filter((m) => same(m.from, from) && same(m.to, to));
  if (moves.length === 1) return play(moves[0].action);
  const box = $("promotion");  // several moves between the same squares: a promotion
  box.innerHTML = "";
  box.hidden = false;
  for (const move of moves) {
    const button = document.createElement("button");
    button.textContent = move.promotion || "?";
    button.dataset.promotion = move.promotion;
    button.onclick = () => { box.hidden = true; play(move.action); };
    box.appendChild(button);
  }
}

function play(action) {
  selected = null;
  send({ type: "move", action, ply: view.ply });
}

document.addEventListener("pointerup", release);
$("setup").addEventListener("submit", newGame);
$("game").addEventListener("change", fillSeats);
$("mode").addEventListener("change", defaultSeats);
$("takeback").onclick = () => send({ type: "takeback" });
$("watch").onchange = () => { watching = $("watch").value || null; if (watching) send({ type: "watch", tournament: watching }); };
setInterval(() => { if (watching && socket.readyState === 1) send({ type: "watch", tournament: watching }); }, 3000);
const step = (delta) => send({ type: "replay", tournament: watching, id: replayGame, ply: Math.max(0, view.ply + delta) });
$("back").onclick = () => step(-1);
$("forward").onclick = () => step(1);
$("flip").onclick = () => { flipped = !flipped; if (view) draw(); };
$("download").onclick = () => { pgnWanted = true; send({ type: "pgn" }); };
connect();
