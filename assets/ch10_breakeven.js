// Chapter 10 redrawn in the browser while α, γ or c moves: BreakEvenFigures.draw
// (chapters/ch10_breakeven/figures.py) and readout_html, table_html, cost_note_html, versus_html
// (uikit/readouts.py), over analytic.js's numbers. The same HTML and data as Python's, in the page's
// language (words: uikit.readouts.browser_words, the same templates Python fills, and how the page
// writes numbers), so the server's redraw after a slider is released changes nothing on the page.
// Nothing here is sent to the server ({sync: false}).
//
// args: curve, point, measured, bars, lecture_cost, measured_cost (sources), speed_range,
// gamma_range, cost_range, break_span, break_label, span_as_built (the hidden line's α), profile
// ({verify, busy, notes} or null: figures.browser_profile), gamma_max, colours, request (the measured
// request's α, γ, c and speed-up: readouts.measured_point; empty before Use my models), words (the
// sentences and number format); cb_data: alpha, gamma, c and the readout, table, note and versus panes' models.
const {alpha: a, gamma: g, c, readout, table, note, versus} = cb_data
const quiet = {sync: false}
const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#x27;")          // Python's html.escape, as Panel sends text

const written = words.format
const number = (x, d) => analytic.number(x, d, written)     // lab/i18n/formats.py number, in the page's language
const f2 = (x) => number(x, 2)
// readouts.short: Python's format(x, "g") for these values, with the page's decimal sign
const short = (x) => {
  const text = String(Number(x.toPrecision(6)))
  return written.python ? text : text.replace(".", written.decimal)
}
const fill = analytic.fill
const GAMMAS = Array.from({length: gamma_max}, (_, i) => i + 1)
const n = analytic.numbers(a, g, c, gamma_max)
const max = (xs) => Math.max(...xs)

// ---- the figures ----
const top = Math.max(2, max(n.curve) * 1.1)
const be = n.break_even
curve.setv({data: {...curve.data, speedup: n.curve}}, quiet)
point.setv({data: {alpha: [a], speedup: [n.speedup]}}, quiet)
speed_range.setv({end: top}, quiet)
if (Number.isNaN(be)) {
  break_span.setv({visible: false, location: span_as_built}, quiet)   // hidden: as the page built it
  break_label.setv({text: words.no_label, x: 0.98, y: top * 0.6, text_align: "right",
                    x_offset: 0}, quiet)
} else {
  const left = be > 0.6
  break_span.setv({visible: true, location: be}, quiet)
  break_label.setv({text: fill(words.label, {be: f2(be)}), x: be, y: top * 0.04, text_align: left ? "right" : "left",
                    x_offset: left ? -4 : 4}, quiet)
}
const pays = n.best_speedup > 1
const filled = (k) => k === n.best_gamma && pays
bars.setv({data: {...bars.data, speedup: n.per_gamma, color: GAMMAS.map((k) => filled(k) ? colours.target : colours.muted),
                  hatch: GAMMAS.map((k) => filled(k) ? " " : "/")}}, quiet)
gamma_range.setv({end: Math.max(2, max(n.per_gamma) * 1.15)}, quiet)
const lecture = GAMMAS.map((k) => 1 + k * c)
lecture_cost.setv({data: {...lecture_cost.data, cost: lecture}}, quiet)
let measured_costs = []
if (profile != null) {
  const v = profile.verify
  measured.setv({data: {alpha: analytic.ALPHAS, speedup: analytic.ALPHAS.map((x) => analytic.profile_speedup(v, x, g, c))}}, quiet)
  measured_costs = GAMMAS.map((k) => analytic.profile_round_cost(v, k, c))
  measured_cost.setv({data: {gamma: GAMMAS, cost: measured_costs}}, quiet)
}
cost_range.setv({end: 1.1 * max([...lecture, ...measured_costs])}, quiet)

// ---- the read-outs (uikit/readouts.py), from words' templates ----
const word = n.speedup > 1 ? "faster" : (n.speedup === 1 ? "same" : "slower")
const said = {alpha: f2(a), gamma: g, c: f2(c), k: g + 1, e: f2(n.E), cost: f2(n.cost)}
const best = fill(pays ? words.best : words.dont, {...said, best: n.best_gamma, speedup: f2(n.best_speedup)})
// the break-even line: the lecture's cost, and this machine's verify cost
// (lab.speed.request.measured_break_even: α to 0.001; readouts.break_even_line)
let be_line = fill(Number.isNaN(be) ? words.never : words.break_even, {gamma: g, c: f2(c), be: Number.isNaN(be) ? "" : f2(be)})
if (profile != null) {
  const c2 = Math.round(c * 100) / 100
  let at = null
  for (let i = 0; i <= 1000; i++) {
    const x = i === 1000 ? 1 : i * (1 / 1000)
    if (analytic.profile_speedup(profile.verify, x, g, c2) >= 1) { at = x; break }
  }
  const measured = fill(at === null ? words.measured_never : words.measured,
                        {be: at === null ? "" : f2(at), k: g + 1, v: f2(profile.verify[g])})
  be_line = [be_line, measured].join(words.semicolon)
  if (profile.busy) be_line = fill(words.busy, {line: be_line, busy: profile.busy})
}
const lines = [fill(words.tokens, said), fill(words.cost, said), fill(words[word], {...said, speedup: f2(n.speedup)}),
               be_line, best]
const formula = `<div class='speclab-formula'>${lines.join("<br>")}</div>`

const current = [Math.round(a * 100) / 100, g]
const rows = table_rows.map((r) => r.slice())
if (!rows.some(([x, k]) => x === current[0] && k === current[1])) rows.push(current)
const body = rows.map(([x, k]) => {
  const mark = x === current[0] && k === current[1] ? " class='current'" : ""
  return `<tr${mark}><td>${fill(words.alpha_gamma, {alpha: short(x), gamma: k})}</td><td>${number(x ** (k + 1), 3)}</td>` +
    `<td>${f2(analytic.expected_tokens(x, k))}</td><td>${f2(analytic.speedup(x, k, c))}×</td></tr>`
}).join("")
const lecture_table = "<table class='speclab-table'><thead><tr><th>α, γ</th><th>α<sup>γ+1</sup></th>" +
  `<th>${words.tokens_head}</th><th>${fill(words.speedup_head, {c: short(c)})}</th></tr></thead>` +
  `<tbody>${body}</tbody></table>`

// the note beside the round-cost figure (uikit.verdicts.verify_note, one per γ from Python)
const cost_note = profile != null ? profile.notes[g - 1] : words.no_profile
// the sliders against the measured request (uikit/readouts.py versus_html)
let against = ""
if (request.data.alpha.length) {
  const [ra, rg, rc, rs] = ["alpha", "gamma", "c", "speedup"].map((k) => request.data[k][0])
  const there = analytic.speedup(ra, rg, rc), here = analytic.speedup(a, g, c)
  const where = fill(words.alpha_gamma_c, {alpha: f2(ra), gamma: rg, c: f2(rc)})
  const same = Math.round(a * 100) === Math.round(ra * 100) && g === rg && Math.round(c * 100) === Math.round(rc * 100)
  against = `<p class='versus'>${fill(same ? words.at_request : words.moved,
                                      {where, there: f2(there), here: f2(here), measured: f2(rs)})}</p>`
}
const html = {formula, table: lecture_table, note: `<p class='cost-note'>${cost_note}</p>`, versus: against}
for (const [pane, text] of [[readout, html.formula], [table, html.table], [note, html.note], [versus, html.versus]])
  if (pane != null) pane.setv({text: escape(text)}, quiet)
return html
