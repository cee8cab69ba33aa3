// Chapter 6's Draw, Draw 1000 and Reset counts computed in the browser (the offline copy: export/
// attaches this to the buttons; the served page draws in Python). The same draws as Python's, number for
// number: numpy's PCG64 generator from the student's seeded state (lab.experiments.twotokens.student_rng),
// its random() doubles, then AcceptRuleChapter.draw and reset (chapters/ch06_accept_rule/__init__.py): n values for
// x ~ q, then n for u, kept when u < min(1, p(x)/q(x)), the counts, the share of A's line and the panes'
// sentences. p(A) and q(A) are the page's current values (lines_src, which the sliders' redraw sets),
// so a draw after a slider moved uses the moved values; a move clears the counts and restarts the
// generator (assets/ch06_accept_rule.js), as Python's reset does when the slider is let go.
//
// args: n (rounds; 0 resets), seed_state, seed_inc (the generator's state, decimal strings), the sources
// and models of chapters/ch06_accept_rule/figures.py, tokens, kept_colour, rejected_colour, share_axis,
// share_points, settled, seed_note (its text), words (the page's sentences in its language and how it
// writes numbers and counts: chapters/ch06_accept_rule/__init__.py browser_words), prefix (the panes'
// class prefix, uikit.browser).
// cb_data may name the panes (last_draw, freq_table, share_note); else they are found on the page.
const quiet = {sync: false}
const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#x27;")          // Python's html.escape, as Panel sends text

// numpy's PCG64 (XSL-RR 128/64): step, then output; random() = (next64 >> 11) · 2^-53
const MASK128 = (1n << 128n) - 1n, MASK64 = (1n << 64n) - 1n
const MULT = (2549297995355413924n << 64n) + 4865540595714422341n
function next64(g) {
  g.state = (g.state * MULT + g.inc) & MASK128
  const x = ((g.state >> 64n) ^ g.state) & MASK64
  const rot = g.state >> 122n
  return ((x >> rot) | (x << ((64n - rot) & 63n))) & MASK64
}
const random = (g) => Number(next64(g) >> 11n) / 9007199254740992

const panes = {}
for (const name of ["last_draw", "freq_table", "share_note"])
  if (cb_data && cb_data[name] !== undefined) panes[name] = cb_data[name]
if (!Object.keys(panes).length && share_src.document)      // the page's models (cb_obj is the click event)
  for (const m of share_src.document.all_models)
    for (const c of m.css_classes ?? [])
      if (c.startsWith(prefix)) panes[c.slice(prefix.length)] = m

const num = (x, d) => analytic.number(x, d, words.language.format)     // uikit.language's number
const form = analytic.plural(words.language.plural)                    // ngettext's pick: form(forms, n)
const fill = analytic.fill
const p_a = lines_src.data.p[0], q_a = lines_src.data.q[0]
const p = [p_a, 1 - p_a], q = [q_a, 1 - q_a]
const thr = analytic.thresholds(p_a, q_a)
const fresh = () => ({gen: {state: BigInt(seed_state), inc: BigInt(seed_inc)}, proposed: [0, 0], kept: [0, 0],
                      outputs: [0, 0], last: null})
let s = share_src._speclab_draws
if (n === 0 || !s) s = share_src._speclab_draws = fresh()

// ---- draw(n): x ~ q, u ~ U[0, 1); kept when u < min(1, p(x)/q(x)), else the other token ----
let points = {n: [], share: []}
if (n > 0) {
  const xs = Array.from({length: n}, () => (random(s.gen) >= q_a ? 1 : 0))
  const us = Array.from({length: n}, () => random(s.gen))
  const before = s.outputs[0] + s.outputs[1]
  let a = s.outputs[0]
  const share = []
  xs.forEach((x, i) => {
    const kept = us[i] < thr[x]
    const out = kept ? x : 1 - x
    s.proposed[x] += 1
    if (kept) s.kept[x] += 1
    s.outputs[out] += 1
    if (out === 0) a += 1
    share.push(a / (before + i + 1))
  })
  const x = xs[n - 1], kept = us[n - 1] < thr[x]
  s.last = {token: tokens[x], u: us[n - 1], threshold: thr[x], kept, n}
  // the share line's points: np.unique(np.linspace(0, n − 1, min(n, share_points)).astype(int))
  const m = Math.min(n, share_points), step = (n - 1) / Math.max(m - 1, 1)
  const at = [...new Set(Array.from({length: m}, (_, i) => Math.trunc(i === m - 1 ? n - 1 : i * step)))]
  points = {n: at.map((i) => before + i + 1), share: at.map((i) => share[i])}
}

// ---- the figures: clear_share / add_share, draw_draws ----
if (n > 0) {
  share_src.setv({data: {n: [...share_src.data.n, ...points.n], share: [...share_src.data.share, ...points.share]}}, quiet)
  share_range.setv({end: Math.max(share_axis, points.n[points.n.length - 1])}, quiet)
  share_item.setv({visible: true}, quiet)
} else {
  share_src.setv({data: {n: [], share: []}}, quiet)
  share_range.setv({end: share_axis}, quiet)
  share_item.setv({visible: false}, quiet)
}
const freq = [0, 1].map((i) => (s.proposed[i] > 0 ? s.kept[i] / s.proposed[i] : NaN))
freq_src.setv({data: {token: tokens, freq: freq.map((f) => (isNaN(f) ? 0 : f)), rule: thr}}, quiet)
const last = s.last
if (last) {
  thr_src.setv({data: {left: [0], right: [last.threshold]}}, quiet)
  u_src.setv({data: {u: [last.u], y: [0.5], color: [last.kept ? kept_colour : rejected_colour]}}, quiet)
  u_label.setv({text: `u = ${num(last.u, 3)}`}, quiet)
} else {
  thr_src.setv({data: {left: [0], right: [0]}}, quiet)
  u_src.setv({data: {u: [], y: [], color: []}}, quiet)
  u_label.setv({text: ""}, quiet)
}

// ---- the panes: last_draw_html, frequency_table_html, share_note_html + seed_note ----
// (last_draw_html, draw_sentence, frequency_table_html, share_note_html and its notes, in words' templates)
let last_draw = words.no_draw
if (last) {
  const [verdict, rel] = last.kept ? [words.kept, "<"] : [words.rejected, "≥"]
  const said = fill(last.n > 1 ? words.many_draws : words.one_draw, {n: last.n, token: last.token, u: num(last.u, 3),
                                                                     rel, threshold: num(last.threshold, 3), verdict})
  last_draw = `<p class='speclab-formula'>${said}</p>`
}
const rows = tokens.map((t, i) => {
  const kind = words.regions[q[i] > p[i] ? "eager" : (q[i] < p[i] ? "shy" : "agree")]
  const f = isNaN(freq[i]) ? "—" : num(freq[i], 3)
  return `<tr><td><b>${t}</b></td><td>${num(p[i], 2)}</td><td>${num(q[i], 2)}</td><td>${kind}</td>` +
    `<td>${s.proposed[i]}</td><td>${s.kept[i]}</td><td>${f}</td><td>${num(thr[i], 3)}</td></tr>`
}).join("")
const table = `${words.table_head}<tbody>${rows}</tbody></table>`
const total = s.outputs[0] + s.outputs[1], a = s.outputs[0]
let note
if (!total)
  note = words.first_note
else if (total < settled)
  note = `<p class='speclab-formula'>${fill(form(words.few_rounds, total), {
    total, outputs: fill(form(words.outputs, a), {a}), settled})}</p>`
else
  note = `<p class='speclab-formula'>${fill(form(words.settled, total), {
    total, share: num(a / total, 3), p: num(p_a, 2), spread: num(2 * (p_a * (1 - p_a) / total) ** 0.5, 3),
    q: num(q_a, 2)})}</p>`
const html = {last_draw, freq_table: table, share_note: note + seed_note}
for (const [name, text] of Object.entries(html))
  if (panes[name] != null) panes[name].setv({text: escape(text)}, quiet)
return html
