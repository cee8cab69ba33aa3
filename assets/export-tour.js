// A tour step's page of the exported lab follows the steps before it, as the served tour does
// (export/tourline.py). The served tour keeps one session's chapter objects across its steps;
// here each step is a page of its own, so the names of the presses made on a chapter's steps are
// kept for the browser tab's session (sessionStorage), and each step's page follows them through
// its own recording from its opening (whose first states are the tour's own presses of the
// chapter's earlier steps); a press the page's recording does not hold where it comes is passed
// over, and the page says so. A press the page computes in the browser (chapter 6's draws: data.computed,
// export/tourline.py computed_names) is run again by its code, in the order the presses were made,
// whether or not this step shows its button. A tour opened afresh (not by its own keys, a reload, the browser's
// Back or a reload of the tour's frame page: assets/export-wrapper.js) starts every chapter afresh, as a
// new served session does.
window.SpeclabTourLine = function (data) {
  "use strict";
  const tour = data.tour;
  if (!tour) return null;
  const names = data.names || {};
  const computed = data.computed || {};      // a press's name → the id of the code the page runs for it
  const PREFIX = "speclab-export-tour:";
  const LOG = PREFIX + tour.chapter;
  const NEXT = "speclab-export-tour-next";     // the step the tour's keys are opening

  function nameOf(key) {
    return names[key] || (key.startsWith("~") ? key.slice(1) : undefined);
  }

  function read() {
    try {
      const log = JSON.parse(sessionStorage.getItem(LOG) || "[]");
      return Array.isArray(log) ? log.filter((name) => typeof name === "string") : [];
    } catch (e) { return []; }
  }

  function write(log) {
    try { sessionStorage.setItem(LOG, JSON.stringify(log)); } catch (e) { /* storage off: each step opens afresh */ }
  }

  function begin() {
    let arrived = null;
    try {
      arrived = sessionStorage.getItem(NEXT);
      sessionStorage.removeItem(NEXT);
    } catch (e) { return; }
    const nav = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
    const kind = nav ? nav.type : "navigate";
    const resumed = new URLSearchParams(location.search).has("resume");   // the tour's frame page reloaded
    if (kind === "reload" || kind === "back_forward" || resumed || arrived === String(tour.step)) return;
    for (const key of Object.keys(sessionStorage)) if (key.startsWith(PREFIX)) sessionStorage.removeItem(key);
  }

  // [patch, state] of the press `key` in state n, or of a recorded press with the same name there
  function edge(n, key) {
    const edges = data.nodes[n].edges;
    if (edges[key]) return edges[key];
    const name = nameOf(key);
    for (const [k, e] of Object.entries(edges)) if (name !== undefined && nameOf(k) === name) return e;
    return undefined;
  }

  // the state the press named `name` leads to from state n (a recorded press, or one that leads
  // to one state from anywhere), or undefined
  function follow(n, name) {
    for (const [k, e] of Object.entries(data.nodes[n].edges)) if (nameOf(k) === name) return e[1];
    for (const jumps of [data.jumps[data.nodes[n].context] || {}, data.jumps["*"] || {}])
      for (const [k, target] of Object.entries(jumps)) if (nameOf(k) === name) return target === null ? n : target;
    return undefined;
  }

  // Where the chapter's presses so far lead on this page: {node, missed, made, codes}; a press not
  // recorded where it comes is passed over (the log keeps it: another step's page may hold it),
  // unless the page computes it: `codes`, the ids of the code to run for those presses, in order.
  function open() {
    begin();
    const log = read();
    let node = 0, missed = 0;
    const codes = [];
    for (const name of log) {
      const next = follow(node, name);
      if (next !== undefined) node = next;
      if (computed[name] !== undefined) codes.push(computed[name]);
      else if (next === undefined) missed += 1;
    }
    return { node, missed, made: log.length, codes };
  }

  // The sentence in the page's language (export/site.py player_words: a form per count of the
  // presses made, picked by the language's plural rule as analytic.plural does).
  function sentence(missed, made) {
    const words = data.words || {};
    const forms = words.line || [];
    const rule = /^[n0-9\s()?:!=<>&|%+*\/-]*$/.test(words.plural || "") ? words.plural : "(n != 1)";
    const form = forms[Math.min(Number(new Function("n", `return Number(${rule})`)(made)), forms.length - 1)] || "";
    const values = {missed, made, followed: made - missed};
    return form.replace(/\{\{|\}\}|\{(\w+)\}/g, (m, name) => (name === undefined ? m[0] : String(values[name])));
  }

  return {
    open, edge, sentence,
    pressed(key) { const name = nameOf(key); if (name !== undefined) write([...read(), name]); },
    leaving(step) { try { sessionStorage.setItem(NEXT, String(step)); } catch (e) { /* storage off */ } },
  };
};
