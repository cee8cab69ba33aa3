// The exported lab's player (export/): a press on a page's control applies the patch the
// served page's own callback made for it when the page was exported (window.SPECLAB_EXPORT:
// states, each with the presses recorded from it, and Bokeh PATCH-DOC patches).
// A press not recorded from the current state but leading to one state from anywhere in its context
// ("Start again"; a preset, a draft variant or a drafter: each choice of the preset bar is a context,
// export/combos.py) reopens the page in that state, with the sliders the student moved where they were;
// from a measured state of a page that measures a newly chosen choice itself, in the choice's first result.
// Predict answers are layers over the state (export/answers.py): each state has, per card and
// answer, the patch that answering makes there and the one that takes it back. A move between
// states lifts the answers, applies the press, and lays them again, so answering keeps the page as
// it is (rounds stepped, sliders moved) and the verdict is the one the served page shows there.
// A tour step's projector scale is a layer of its opening state the same way; the free room the
// tour then reports is shared among the step's figures here, as shell/tour/fit.py does when served.
// The state and the answers are kept in localStorage, so a reload (or a later visit) shows them.
// A tour step's page opens where the presses made on its chapter's earlier steps lead (export-tour.js),
// the presses it computes in the browser run again by their code (chapter 6's draws).
(function () {
  "use strict";
  const data = window.SPECLAB_EXPORT;
  if (!data) return;
  const KEY = "speclab-export:" + data.page;
  const cards = data.cards || [];
  const scales = data.scales || {};
  // the sentences the player says, in the page's language (export/site.py player_words)
  const words = data.words || {};
  const line = window.SpeclabTourLine ? window.SpeclabTourLine(data) : null;   // tour steps only
  const answerOf = {};      // model id → [card index, its answer, or null for a number card's lock]
  cards.forEach((card, i) => {
    if (card.kind === "choice") for (const [id, label] of Object.entries(card.buttons)) answerOf[id] = [i, label];
    else answerOf[card.lock] = [i, null];
  });
  const hooked = new Set();
  let node = 0;
  let answers = {};         // card index → the student's answer (as recorded: a label, or a number's text)
  let scaleShown = 100;     // the projector scale laid over a tour step, in percent
  const stateValues = {};   // a browser-drawn slider's id → its value in the recorded state
  let applying = false;

  function bokehDoc() {
    return window.Bokeh && Bokeh.documents && Bokeh.documents.length ? Bokeh.documents[0] : null;
  }

  // One sentence at the foot of the screen. The page keeps room for it under its content (the
  // scrolling page a bottom margin; a tour step --speclab-notice-room, which assets/tour.js takes
  // from the free room it fits the step into), so it covers nothing; × takes it and its room away.
  function say(sentence) {
    let box = document.getElementById("speclab-export-notice");
    if (!box) {
      box = document.createElement("div");
      box.id = "speclab-export-notice";
      box.setAttribute("role", "status");
      box.style.cssText = "position:fixed;bottom:12px;left:50%;transform:translateX(-50%);z-index:9999;" +
        "display:flex;gap:10px;align-items:flex-start;background:#fff8f0;border:2px solid #b35900;" +
        "border-radius:8px;padding:8px 8px 8px 14px;font-size:1rem;width:max-content;max-width:min(92vw,56rem);box-sizing:border-box";
      const text = document.createElement("span");
      const close = document.createElement("button");
      close.type = "button";
      close.textContent = "×";
      close.setAttribute("aria-label", words.close);
      close.style.cssText = "border:0;background:none;font-size:1.2rem;line-height:1;cursor:pointer;padding:0 4px";
      close.addEventListener("click", () => { box.remove(); keepRoom(0); });
      box.append(text, close);
      document.body.appendChild(box);
      // its height changes with the tour's projector scale (the type grows): the room follows it
      if (window.ResizeObserver) new ResizeObserver(() => { if (box.isConnected) keepRoom(box.offsetHeight + 24); }).observe(box);
    }
    box.firstChild.textContent = sentence;
    keepRoom(box.offsetHeight + 24);
  }

  function keepRoom(px) {
    if (String(px || "") === document.documentElement.style.getPropertyValue("--speclab-notice-room")) return;
    const main = document.getElementById("main") || document.body;
    main.style.paddingBottom = px ? `${px}px` : "";
    if (px) document.documentElement.style.setProperty("--speclab-notice-room", `${px}`);
    else document.documentElement.style.removeProperty("--speclab-notice-room");
    window.dispatchEvent(new Event("resize"));     // a tour step fits itself again (assets/tour.js)
  }

  function apply(index) {
    const patch = data.patches[index];
    if (!patch || !patch.events.length) return;
    applying = true;
    try {
      bokehDoc().apply_json_patch(patch);
    } finally {
      applying = false;
    }
    for (const e of patch.events) {
      const id = e.model && e.model.id;
      if (e.kind === "ModelChanged" && e.attr === "value" && id in stateValues)
        stateValues[id] = bokehDoc().get_model_by_id(id).value;
    }
    hook();
  }

  // The sliders that redraw in the browser (uikit.browser: a JS callback on their value): a
  // student's move is no recorded state, so a reopened page sets them again where the press that
  // reopened it left them as they were.
  function noteSliders() {
    for (const model of bokehDoc().all_models) {
      const callbacks = model.js_property_callbacks;
      if ((model.type || "").endsWith("Slider") && typeof model.value === "number" && callbacks &&
          Object.keys(callbacks).length) stateValues[model.id] = model.value;
    }
  }

  function movedSliders() {
    const moved = {};
    for (const [id, was] of Object.entries(stateValues)) {
      const model = bokehDoc().get_model_by_id(id);
      if (model && model.value !== was) moved[id] = [was, model.value];
    }
    return moved;
  }

  function carrySliders(moved) {
    for (const [id, [was, value]] of Object.entries(moved || {})) {
      const model = bokehDoc().get_model_by_id(id);
      if (model && stateValues[id] === was) model.value = value;
    }
  }

  function pathTo(n) {
    const via = [];
    while (n && data.nodes[n]) {
      via.unshift(data.nodes[n].via);
      n = data.nodes[n].parent;
    }
    return via;
  }

  function remember(carry) {
    try {
      localStorage.setItem(KEY, JSON.stringify(carry ? { node, answers, carry } : { node, answers }));
    } catch (e) { /* storage off: the page still works */ }
  }

  function recalled() {
    try {
      const saved = JSON.parse(localStorage.getItem(KEY) || "null");
      if (typeof saved === "number") return { node: saved, answers: {} };
      if (saved && typeof saved === "object")
        return { node: saved.node | 0, answers: saved.answers || {}, carry: saved.carry };
    } catch (e) { /* storage off or unreadable: the opening state */ }
    return { node: 0, answers: {} };
  }

  // [in, out] of card i's answer `value` in state n, or undefined where it was not recorded
  function layer(n, i, value) {
    const byCard = data.nodes[n] && data.nodes[n].answers;
    return byCard && byCard[i] && byCard[i][value];
  }

  function lift() {
    for (const i of Object.keys(answers).reverse()) {
      const l = layer(node, i, answers[i]);
      if (l) apply(l[1]);
    }
  }

  function lay() {
    let missing = false;
    for (const i of Object.keys(answers)) {
      const l = layer(node, i, answers[i]);
      if (l) apply(l[0]);
      else missing = true;
    }
    if (missing) say(words.answer_kept);
  }

  function answer(i, value) {
    const l = layer(node, i, value);
    if (!l) {
      say(words.answer_missing);
      return;
    }
    if (answers[i] === value) return;
    if (i in answers) {
      const old = layer(node, i, answers[i]);
      if (old) apply(old[1]);
    }
    apply(l[0]);
    answers[i] = value;
    remember();
  }

  function lockIn(i) {
    const card = cards[i];
    const box = bokehDoc().get_model_by_id(card.box);
    const value = box ? box.value : null;
    if (value === null || value === undefined) return;       // nothing typed: the served card waits too
    if (!Number.isInteger(value) || value < card.bounds[0] || value > card.bounds[1]) {
      say(card.problem);
      return;
    }
    answer(String(i), String(value));
  }

  function press(key) {
    if (applying) return;
    if (key in answerOf) {
      const [i, value] = answerOf[key];
      if (value === null) lockIn(i);
      else answer(String(i), value);
      return;
    }
    const edge = line ? line.edge(node, key) : data.nodes[node].edges[key];
    if (edge) {
      lift();
      apply(edge[0]);
      node = edge[1];
      lay();
      remember();
      if (line) line.pressed(key);
      return;
    }
    const here = data.jumps[data.nodes[node].context] || {};
    const anywhere = data.jumps["*"] || {};
    // once measured, a page that measures a newly chosen choice itself opens it measured (combos.py)
    const measured = data.nodes[node].measured ? (data.remeasured || {})[data.nodes[node].context] || {} : {};
    if (key in here || key in anywhere) {
      const target = key in measured ? measured[key] : key in here ? here[key] : anywhere[key];
      if (target === null) return;          // the chosen preset's own button: the served page does nothing
      node = target;
      if (line) line.pressed(key);
      remember(movedSliders());
      location.reload();
      return;
    }
    if (computed(key)) {
      if (line) line.pressed(key);         // the next step's page runs its code again (export-tour.js)
    } else say(words.step_missing);
  }

  // A button whose press the page computes in the browser (its own click code: chapter 6's draws,
  // export/build.py computed_in_browser) needs no recording to work.
  function computed(key) {
    const model = bokehDoc().get_model_by_id(key);
    const callbacks = model && model.js_event_callbacks;
    const list = callbacks instanceof Map ? callbacks.get("button_click") : callbacks && callbacks.button_click;
    return Boolean(list && list.some((callback) => callback.code));     // Panel's own has no code
  }

  // the projector's scale (assets/tour.js reports it on the tour's deck): its recorded layer
  function showScale(scale) {
    const percent = Math.round(scale * 100);
    if (percent === scaleShown || applying) return;
    if (scaleShown !== 100 && scales[scaleShown]) apply(scales[scaleShown][1]);
    scaleShown = 100;
    if (percent !== 100 && scales[percent]) {
      apply(scales[percent][0]);
      scaleShown = percent;
    }
  }

  // Python's round(): halves to the even neighbour
  function pyRound(x) {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  // The sizes StageSizer.fit (shell/tour/fit.py) gives the step's figures for the free `room` at
  // `scale`, from their `current` sizes ([{height, width}] in the plan's order): stacked figures
  // split the height, fixed-width ones the width (taken only with free height), never below the
  // plan's smallest share of their scaled size.
  function fitSizes(scale, room, current) {
    const plan = data.fit;
    const dh = (room.height || 0) / Math.max(plan.stacked, 1);
    const fixed = plan.figures.filter((f, j) => f.fixed && current[j].width);
    const dw = (room.width || 0) / Math.max(fixed.length, 1);
    return plan.figures.map((f, j) => {
      const sizes = {};
      if (f.height !== null && current[j].height)
        sizes.height = Math.max(pyRound(f.height * scale * plan.smallest), pyRound(current[j].height + dh));
      if (f.fixed && current[j].width && f.width !== null)
        sizes.width = Math.max(pyRound(f.width * scale * plan.smallest),
                               pyRound(current[j].width + (dh > 0 ? dw : Math.min(dw, 0))));
      return sizes;
    });
  }
  window.SPECLAB_EXPORT_FIT = data.fit ? fitSizes : undefined;

  // the free room assets/tour.js reports under a drawn step: its figures grow into it (or shrink)
  function fitRoom(deck) {
    const room = deck.room || {};
    if (!data.fit || !data.fit.figures.length || room.step !== deck.rendered || room.step !== deck.step) return;
    const doc = bokehDoc();
    const figures = data.fit.figures.map((f) => doc.get_model_by_id(f.id));
    if (figures.some((fig) => !fig)) return;
    const sizes = fitSizes(deck.scale, room, figures.map((fig) => ({ height: fig.height, width: fig.width })));
    figures.forEach((fig, j) => {
      for (const [name, value] of Object.entries(sizes[j])) if (fig[name] !== value) fig[name] = value;
    });
  }

  function hook() {
    const doc = bokehDoc();
    for (const model of doc.all_models) {
      if (hooked.has(model.id)) continue;
      const type = model.type || "";
      if (type.endsWith("Button") && !("active" in model)) {
        hooked.add(model.id);
        model.on_event("button_click", () => press(model.id));
      } else if (model.data && model.data.properties && "steps" in model.data.properties &&
                 "step" in model.data.properties) {
        // the guided tour's deck (assets/tour.js): a step is a page of its own in the export
        hooked.add(model.id);
        const deck = model.data;
        const shown = deck.step;
        deck.connect(deck.properties.step.change, () => {
          if (deck.step === shown) return;
          if (line) line.leaving(deck.step);
          window.location.href = `tour-${deck.step}.html`;
        });
        if ("scale" in deck.properties) {
          deck.connect(deck.properties.scale.change, () => showScale(deck.scale));
          deck.connect(deck.properties.room.change, () => fitRoom(deck));
          setTimeout(() => showScale(deck.scale), 0);
        }
      } else if (type.endsWith("RadioButtonGroup")) {
        hooked.add(model.id);
        model.connect(model.properties.active.change, () => {
          if (!applying) press(model.id + ":" + model.active);
        });
      }
    }
  }

  // The last step of a tour exported in part (`--tour N`): its Next is off (the deck ends here,
  // export/build.py end_tour), and a forward key says in one sentence where the rest is.
  function tourEnd() {
    const tour = data.tour;
    if (!tour || !tour.steps || tour.step !== tour.steps) return;
    const said = () => say(words.tour_end);
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const tag = (e.target && e.target.tagName || "").toLowerCase();
      const typing = tag === "input" || tag === "textarea" || tag === "select";
      if (!typing && (e.key === "ArrowRight" || e.key === "PageDown" || (e.key === " " && tag !== "button" && tag !== "a")))
        said();
    });
    // the tour's frame page passes on the keys it takes itself (assets/export-wrapper.js)
    window.addEventListener("message", (e) => {
      if (e.source === window.parent && e.data && e.data.speclab === "tour-wrapper" && e.data.go > 0) said();
    });
  }

  // the code of the presses made on the chapter's earlier steps that the page computes (their ids),
  // run in the order they were made, as their clicks ran it there
  async function rerun(codes) {
    for (const id of codes || []) {
      const code = bokehDoc().get_model_by_id(id);
      if (code) await code.execute(code, {});
    }
  }

  // once: es-module-shims (Panel's ESM components) fires DOMContentLoaded a second time
  let begun = false;
  async function start() {
    const doc = bokehDoc();
    if (begun) return;
    if (!doc || !doc.roots().length) {
      setTimeout(start, 50);
      return;
    }
    begun = true;
    hook();
    tourEnd();
    noteSliders();
    const saved = recalled();
    const opened = line ? line.open() : { node: saved.node };
    if (opened.node > 0 && opened.node < data.nodes.length) {
      for (const index of pathTo(opened.node)) apply(index);
      node = opened.node;
    }
    await rerun(opened.codes);
    if (line && opened.missed) say(line.sentence(opened.missed, opened.made));
    answers = {};
    for (const [i, value] of Object.entries(saved.answers)) if (cards[i]) answers[i] = String(value);
    lay();
    if (saved.carry) {
      carrySliders(saved.carry);
      remember();
    }
    document.documentElement.dataset.exportReady = "1";
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
