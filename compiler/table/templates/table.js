// The table's page: asks /state for each new view of the game and draws it; posts the
// answers of the human seats, undo, a new game and a step through a record with the table's
// token (at a shared table, the seat's join code). Every text from the game is set as text,
// never as markup.
"use strict";

const SEAT_COLOURS = ["#d9480f", "#0c8599", "#7048e8", "#c2255c", "#2f9e44", "#e67700"];
const SVG = "http://www.w3.org/2000/svg";
const token = document.querySelector('meta[name="table-token"]').content;
const shared = document.querySelector('meta[name="table-shared"]').content === "yes";
let version = -1;
let shown = null;
let busy = false;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function colourOf(seat) {
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

function words(name) {
  return String(name).replace(/[_-]/g, " ");
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Table-Token": token },
    body: JSON.stringify(body),
  });
  return response.ok ? response.json() : null;
}

async function follow() {
  for (;;) {
    try {
      const response = await fetch(`/state?after=${version}`, {
        cache: "no-store",
        headers: { "X-Table-Token": token },
      });
      if (response.ok) {
        const view = await response.json();
        const aside = (v) => JSON.stringify(v && [v.present, v.pack_note]);
        if (view.version !== version || aside(view) !== aside(shown)) {
          version = view.version;
          draw(view);
        }
      } else {
        await pause(1000);
      }
    } catch (error) {
      await pause(1000); // the server stopped, or is restarting: try again in a moment
    }
  }
}

function pause(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function draw(view) {
  shown = view;
  if (!view.facts) return;
  document.body.dataset.status = view.status;
  const facts = view.facts;
  document.getElementById("where").textContent =
    `${facts.pack} · seed ${facts.seed} · ${facts.seats.length} ` +
    (facts.seats.length === 1 ? "seat" : "seats");
  const round = view.status === "over" ? "game over" : `round ${view.round}` +
    (view.phase ? ` · ${words(view.phase)}` : "");
  document.getElementById("round").textContent = round;
  document.getElementById("undo").disabled = !view.undoable || busy;
  const fresh = document.getElementById("new");
  fresh.hidden = !view.can_deal;
  fresh.disabled = busy || (shared && view.status !== "over");
  drawPresence(view);
  const note = document.getElementById("pack-note");
  note.hidden = !view.pack_note;
  note.textContent = view.pack_note || "";
  drawStepper(view);
  const record = document.getElementById("record");
  record.classList.toggle("disabled", view.status !== "over" || !!view.problem);
  record.setAttribute("aria-disabled", String(view.status !== "over"));
  drawQuestion(view);
  drawSeats(view);
  drawBoard(view);
  drawTracks(view);
  drawLog(view);
}

function seatName(view, seat) {
  const found = view.seats[seat];
  return found ? `${found.name} (seat ${seat + 1})` : `seat ${seat + 1}`;
}

function drawPresence(view) {
  const chip = document.getElementById("present");
  chip.hidden = !view.present;
  if (!view.present) return;
  const here = view.present.map((seat) => `seat ${seat + 1}${seat === view.you ? " (you)" : ""}`);
  chip.textContent = `connected: ${here.join(", ") || "no one"}`;
}

function drawStepper(view) {
  const stepper = document.getElementById("stepper");
  const replay = view.replay;
  stepper.hidden = !replay;
  document.getElementById("undo").hidden = !!replay;
  if (!replay) return;
  document.getElementById("at").textContent = `move ${replay.at} of ${replay.of}`;
  document.getElementById("back").disabled = busy || replay.at <= 0;
  document.getElementById("forward").disabled = busy || replay.at >= replay.of;
}

function mine(view, question) {
  return question.human && (view.you === null || view.you === undefined || view.you === question.seat);
}

function drawQuestion(view) {
  const ask = document.getElementById("ask");
  const who = document.getElementById("ask-who");
  const prompt = document.getElementById("ask-prompt");
  const card = document.getElementById("ask-card");
  const choices = document.getElementById("choices");
  choices.replaceChildren();
  card.textContent = "";
  delete ask.dataset.number;
  ask.className = "ask panel";
  ask.style.removeProperty("--seat");
  const question = view.question;
  if (view.status === "over") {
    ask.classList.add("over");
    who.textContent = view.problem ? "The game stopped" : "The game is over";
    const outcome = view.outcome;
    if (view.problem || !outcome) {
      prompt.textContent = view.problem || "";
      return;
    }
    prompt.textContent = outcome.winners.length
      ? `Won by ${outcome.winners.join(" and ")}`
      : outcome.result ? `The table ${outcome.result}` : "No one won";
    const facts = el("dl", "outcome");
    const shown = Object.entries(outcome.labels);
    if (outcome.stopped) shown.push(["stopped", outcome.stopped]);
    for (const [name, value] of shown) facts.append(el("dt", "", name), el("dd", "", value));
    choices.append(facts);
    choices.append(el("p", "hint", "Download the record to play it back with pillbox replay."));
    return;
  }
  if (!question) {
    who.textContent = "The table is playing…";
    prompt.textContent = "";
    return;
  }
  const seat = view.seats[question.seat];
  const yours = mine(view, question);
  ask.dataset.number = String(question.number);
  ask.style.setProperty("--seat", colourOf(question.seat));
  ask.classList.add(yours ? "human" : "bot");
  if (view.replay) {
    who.textContent = `${seatName(view, question.seat)} was asked`;
  } else if (yours) {
    who.textContent = `${seatName(view, question.seat)}, your decision`;
  } else if (question.human) {
    who.textContent = `${seatName(view, question.seat)} is deciding, at their own screen`;
  } else {
    who.textContent = `${seat.name} (seat ${question.seat + 1}, ${seat.who}) is deciding`;
  }
  prompt.textContent = question.prompt;
  if (question.card) card.textContent = question.card;
  question.choices.forEach((choice, index) => {
    const button = el("button", "choice", choice);
    button.type = "button";
    button.dataset.choice = String(index);
    button.disabled = !yours || !!view.replay;
    if (view.replay && view.replay.answer === index) button.classList.add("picked");
    button.addEventListener("click", () => answer(question.number, index));
    choices.append(button);
  });
}

async function answer(number, index) {
  if (busy) return;
  busy = true;
  for (const button of document.querySelectorAll("#choices button")) button.disabled = true;
  try {
    await post("/answer", { question: number, choice: index });
  } finally {
    busy = false;
  }
}

async function act(path, body) {
  if (busy) return;
  busy = true;
  try {
    await post(path, body);
  } finally {
    busy = false;
  }
}

async function undo() {
  if (busy) return;
  busy = true;
  document.getElementById("undo").disabled = true;
  try {
    await post("/undo", {});
  } finally {
    busy = false;
  }
}

function drawSeats(view) {
  const seats = document.getElementById("seats");
  seats.replaceChildren();
  const colours = view.facts.colours || {};
  for (const seat of view.seats) {
    const box = el("article", "seat panel");
    box.style.setProperty("--seat", colourOf(seat.seat));
    if (view.status !== "over" && view.turn === seat.seat) box.classList.add("turn");
    if (seat.dead) box.classList.add("dead");
    const head = el("header", "seat-head");
    let who = seat.who;
    if (seat.who === "human") {
      who = view.you === null || view.you === undefined || view.you === seat.seat ? "you" : "person";
    }
    head.append(el("span", "token"), el("strong", "", seat.name), el("span", "who", who));
    if (seat.dead) head.append(el("span", "tag", "dead"));
    if (view.present && seat.who === "human") {
      const here = view.present.includes(seat.seat);
      head.append(el("span", here ? "tag here" : "tag away", here ? "connected" : "not connected"));
    }
    box.append(head);
    if (seat.location) box.append(el("p", "place", `at ${words(seat.location)}`));
    const stats = el("dl", "stats");
    for (const [name, value] of Object.entries(seat.stats)) {
      const cell = el("div", "stat");
      if (colours[name]) cell.style.setProperty("--stat", colours[name]);
      cell.append(el("dt", "", words(name)), el("dd", "", value));
      stats.append(cell);
    }
    box.append(stats);
    if (seat.cards.length) {
      const cards = el("ul", "cards");
      for (const card of seat.cards) {
        const item = el("li", card.title === null ? "card down" : "card");
        item.append(el("span", "kind", words(card.kind)));
        item.append(el("span", "title", card.title === null ? "face down" : card.title));
        const tokens = Object.entries(card.tokens || {}).map(([k, v]) => `${v} ${words(k)}`);
        if (tokens.length) item.append(el("span", "tokens", tokens.join(", ")));
        cards.append(item);
      }
      box.append(cards);
    }
    seats.append(box);
  }
}

function drawBoard(view) {
  const holder = document.getElementById("board");
  holder.replaceChildren();
  const board = view.facts.board;
  const panel = document.getElementById("board-panel");
  panel.classList.toggle("boardless", !board);
  if (!board) return;
  const drawing = svg("svg", {
    viewBox: `0 0 ${board.width} ${board.height}`,
    role: "img",
    "aria-label": "the board",
  });
  const at = Object.fromEntries(board.places.map((p) => [p.name, p]));
  for (const band of board.bands) {
    drawing.append(svg("rect", { x: 8, y: band.top, width: board.width - 16,
      height: band.bottom - band.top, rx: 14, class: "band" }));
    drawing.append(svg("text", { x: 18, y: band.top + 16, class: "band-name" }, words(band.name)));
  }
  for (const [a, b] of board.edges) {
    drawing.append(svg("line", { x1: at[a].x, y1: at[a].y, x2: at[b].x, y2: at[b].y, class: "edge" }));
  }
  for (const [a, b] of board.lifts) {
    drawing.append(svg("line", { x1: at[a].x, y1: at[a].y, x2: at[b].x, y2: at[b].y, class: "lift" }));
  }
  const pieces = {};
  view.seats.forEach((seat) => {
    if (seat.location) (pieces[seat.location] ||= []).push({ seat: seat.seat, name: seat.name, dead: seat.dead });
  });
  view.others.forEach((actor) => {
    if (actor.location && !actor.dead) (pieces[actor.location] ||= []).push({ other: true, name: actor.name });
  });
  for (const place of board.places) {
    const group = svg("g", { class: "place", transform: `translate(${place.x},${place.y})` });
    const card = view.in_play[place.name];
    group.append(svg("rect", { x: -50, y: -24, width: 100, height: 48, rx: 10,
      class: card ? "spot laid" : "spot" }));
    group.append(svg("text", { y: card ? -6 : 4, class: "place-name" }, words(place.name)));
    if (card) group.append(svg("text", { y: 10, class: "place-card" },
      card.title === null ? "face down" : card.title));
    const here = pieces[place.name] || [];
    here.forEach((piece, index) => {
      const x = -38 + index * 18;
      const dot = svg("circle", { cx: x, cy: 28, r: 9,
        class: piece.other ? "piece other" : piece.dead ? "piece dead" : "piece" });
      if (!piece.other) dot.style.fill = colourOf(piece.seat);
      dot.append(svg("title", {}, piece.name));
      group.append(dot);
      group.append(svg("text", { x, y: 32, class: "piece-label" },
        piece.other ? "!" : String(piece.seat + 1)));
    });
    drawing.append(group);
  }
  holder.append(drawing);
}

function drawTracks(view) {
  const tracks = document.getElementById("tracks");
  tracks.replaceChildren();
  for (const [name, value] of Object.entries(view.tracks)) {
    const chip = el("span", "chip track");
    chip.append(el("span", "", words(name)), el("b", "", value));
    tracks.append(chip);
  }
  const others = document.getElementById("others");
  others.replaceChildren();
  for (const actor of view.others) {
    if (actor.dead) continue;
    const box = el("div", "other");
    box.append(el("strong", "", actor.name));
    const where = actor.location ? ` at ${words(actor.location)}` : "";
    box.append(el("span", "kind", `${words(actor.kind)}${where}`));
    const stats = Object.entries(actor.stats).map(([k, v]) => `${words(k)} ${v}`).join(" · ");
    box.append(el("span", "other-stats", stats));
    others.append(box);
  }
}

function drawLog(view) {
  const log = document.getElementById("log");
  const stick = log.scrollTop + log.clientHeight >= log.scrollHeight - 40;
  log.replaceChildren();
  if (view.log.earlier) log.append(el("li", "earlier", `… ${view.log.earlier} earlier lines`));
  for (const line of view.log.lines) {
    const item = el("li", `line k-${line.kind.replace(/[^a-z-]/g, "")}`, line.text);
    if (line.depth) item.style.paddingLeft = `${0.6 + line.depth * 0.9}rem`;
    log.append(item);
  }
  document.getElementById("moves").textContent = `${view.moves} moves`;
  if (stick || view.question?.human) log.scrollTop = log.scrollHeight;
}

document.getElementById("undo").addEventListener("click", undo);
document.getElementById("new").addEventListener("click", () => act("/new", {}));
document.getElementById("back").addEventListener("click", () => {
  if (shown && shown.replay) act("/step", { to: shown.replay.at - 1 });
});
document.getElementById("forward").addEventListener("click", () => {
  if (shown && shown.replay) act("/step", { to: shown.replay.at + 1 });
});
if (shared) document.getElementById("record").href = `/record.json?join=${encodeURIComponent(token)}`;
document.getElementById("record").addEventListener("click", (event) => {
  if (!shown || shown.status !== "over") event.preventDefault();
});
follow();
