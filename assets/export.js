// The exported lab's player (shell/export): a press on a page's control applies the patch the
// served page's own callback made for it when the page was exported (window.SPECLAB_EXPORT:
// states, each with the presses recorded from it, and Bokeh PATCH-DOC patches).
// A press not recorded from the current state but leading to one state from anywhere ("Start
// again", a predict answer, a preset) reopens the page in that state. The state is kept in
// localStorage, so a reload (or a later visit) shows the same answers and results.
(function () {
  "use strict";
  const data = window.SPECLAB_EXPORT;
  if (!data) return;
  const KEY = "speclab-export:" + data.page;
  const hooked = new Set();
  let node = 0;
  let applying = false;

  function bokehDoc() {
    return window.Bokeh && Bokeh.documents && Bokeh.documents.length ? Bokeh.documents[0] : null;
  }

  function say(sentence) {
    let box = document.getElementById("speclab-export-notice");
    if (!box) {
      box = document.createElement("div");
      box.id = "speclab-export-notice";
      box.setAttribute("role", "status");
      box.style.cssText = "position:fixed;bottom:12px;left:50%;transform:translateX(-50%);z-index:9999;" +
        "background:#fff8f0;border:2px solid #b35900;border-radius:8px;padding:8px 14px;font-size:1rem;max-width:640px";
      document.body.appendChild(box);
    }
    box.textContent = sentence;
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
    hook();
  }

  function pathTo(n) {
    const via = [];
    while (n && data.nodes[n]) {
      via.unshift(data.nodes[n].via);
      n = data.nodes[n].parent;
    }
    return via;
  }

  function remember() {
    try { localStorage.setItem(KEY, String(node)); } catch (e) { /* storage off: the page still works */ }
  }

  function reopenAt(target) {
    node = target;
    remember();
    location.reload();
  }

  function press(key) {
    if (applying) return;
    const edge = data.nodes[node].edges[key];
    if (edge) {
      apply(edge[0]);
      node = edge[1];
      remember();
      return;
    }
    const here = data.jumps[data.nodes[node].context] || {};
    const anywhere = data.jumps["*"] || {};
    if (key in here || key in anywhere) {
      reopenAt(key in here ? here[key] : anywhere[key]);
      return;
    }
    say("This step was not recorded in the offline copy; the served lab computes it live.");
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
        const shown = model.data.step;
        model.data.connect(model.data.properties.step.change, () => {
          if (model.data.step !== shown) window.location.href = `tour-${model.data.step}.html`;
        });
      } else if (type.endsWith("RadioButtonGroup")) {
        hooked.add(model.id);
        model.connect(model.properties.active.change, () => {
          if (!applying) press(model.id + ":" + model.active);
        });
      }
    }
  }

  function start() {
    const doc = bokehDoc();
    if (!doc || !doc.roots().length) {
      setTimeout(start, 50);
      return;
    }
    hook();
    let saved = 0;
    try { saved = parseInt(localStorage.getItem(KEY) || "0", 10) || 0; } catch (e) { saved = 0; }
    if (saved > 0 && saved < data.nodes.length) {
      for (const index of pathTo(saved)) apply(index);
      node = saved;
    }
    document.documentElement.dataset.exportReady = "1";
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
