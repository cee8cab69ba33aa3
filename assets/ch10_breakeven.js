// Chapter 10 redrawn in the browser while α, γ or c moves: BreakEvenFigures.draw
// (chapters/ch10_breakeven/figures.py) and readout_html, table_html, cost_note_html (uikit/readouts.py),
// over analytic.js's numbers. The same HTML and data as Python's, so the server's redraw after a
// slider is released changes nothing on the page. Nothing here is sent to the server ({sync: false}).
//
// args: curve, point, measured, bars, lecture_cost, measured_cost (sources), speed_range,
// gamma_range, cost_range, break_span, break_label, span_as_built (the hidden line's α), profile
// ({verify, busy} or null), gamma_max, colours, request (the measured request's α, γ, c and speed-up:
// readouts.measured_point; empty before Use my models); cb_data: alpha, gamma, c and the readout,
// table, note and versus panes' models.
const {alpha: a, gamma: g, c, readout, table, note, versus} = cb_data
const quiet = {sync: false}
const f2 = (x) => analytic.fixed(x, 2)
const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#x27;")          // Python's html.escape, as Panel sends text
const short = (x) => String(Number(x.toPrecision(6)))       // Python's format(x, "g") for these values
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
  break_label.setv({text: "no α breaks even\n(c too large)", x: 0.98, y: top * 0.6, text_align: "right",
                    x_offset: 0}, quiet)
} else {
  const left = be > 0.6
  break_span.setv({visible: true, location: be}, quiet)
  break_label.setv({text: `break-even α = ${f2(be)}`, x: be, y: top * 0.04, text_align: left ? "right" : "left",
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

// ---- the read-outs (uikit/readouts.py) ----
const verdict = n.speedup > 1 ? "faster" : (n.speedup === 1 ? "the same" : "slower")
const be_text = Number.isNaN(be) ? "never (even α = 1 is slower)" : `α = ${f2(be)}`
const best = pays ? `<b>γ = ${n.best_gamma}</b> (${f2(n.best_speedup)}×)`
  : `<b>don't draft</b> — no γ pays (the best, γ = ${n.best_gamma}, gives ${f2(n.best_speedup)}×)`
// the break-even with this machine's verify cost (lab.speed.request.measured_break_even: α to 0.001)
let measured_be = ""
if (profile != null) {
  const c2 = Math.round(c * 100) / 100
  let at = "never"
  for (let i = 0; i <= 1000; i++) {
    const x = i === 1000 ? 1 : i * (1 / 1000)
    if (analytic.profile_speedup(profile.verify, x, g, c2) >= 1) { at = `α = ${f2(x)}`; break }
  }
  measured_be = `; ${at} with this machine's verify cost v(${g + 1}) = ${f2(profile.verify[g])}${profile.busy ? "." + profile.busy : ""}`
}
const formula = `<div class='speclab-formula'>E = (1 − α<sup>γ+1</sup>) / (1 − α) = ` +
  `(1 − ${f2(a)}<sup>${g + 1}</sup>) / (1 − ${f2(a)}) = <b>${f2(n.E)}</b> tokens per round` +
  `<br>cost = 1 + γc = 1 + ${g}·${f2(c)} = <b>${f2(n.cost)}</b> target calls` +
  `<br>speed-up = ${f2(n.E)} / ${f2(n.cost)} = <b>${f2(n.speedup)}×</b> — ${verdict} ` +
  `than standard decoding<br>break-even for γ = ${g}, c = ${f2(c)}: ${be_text} with the lecture's cost ` +
  `1 + γc${measured_be}` +
  `<br>best γ for α = ${f2(a)}, c = ${f2(c)}: ${best}</div>`

const current = [Math.round(a * 100) / 100, g]
const rows = table_rows.map((r) => r.slice())
if (!rows.some(([x, k]) => x === current[0] && k === current[1])) rows.push(current)
const body = rows.map(([x, k]) => {
  const mark = x === current[0] && k === current[1] ? " class='current'" : ""
  return `<tr${mark}><td>α = ${short(x)}, γ = ${k}</td><td>${analytic.fixed(x ** (k + 1), 3)}</td>` +
    `<td>${f2(analytic.expected_tokens(x, k))}</td><td>${f2(analytic.speedup(x, k, c))}×</td></tr>`
}).join("")
const lecture_table = "<table class='speclab-table'><thead><tr><th>α, γ</th><th>α<sup>γ+1</sup></th>" +
  `<th>E (tokens / round)</th><th>speed-up at c = ${short(c)}</th></tr></thead>` +
  `<tbody>${body}</tbody></table>`

let cost_note = "The measured cost curve appears once this pair's calls are timed."
if (profile != null) {
  const v = profile.verify[g]
  cost_note = "The lecture counts a verify pass over γ + 1 positions as one target call whatever γ; " +
    `measured on this machine, a pass over ${g + 1} costs v(${g + 1}) = ${f2(v)} calls, so ` +
    `a round costs ${f2(Math.abs(v - 1))} ${v >= 1 ? "more" : "less"} than 1 + γc and the measured ` +
    `speed-up curve lies ${v > 1 ? "below" : "above"} the lecture's.` + profile.busy
}
// the sliders against the measured request (uikit/readouts.py versus_html)
let against = ""
if (request.data.alpha.length) {
  const [ra, rg, rc, rs] = ["alpha", "gamma", "c", "speedup"].map((k) => request.data[k][0])
  const there = analytic.speedup(ra, rg, rc), here = analytic.speedup(a, g, c)
  const where = `α = ${f2(ra)}, γ = ${rg}, c = ${f2(rc)}`
  const same = Math.round(a * 100) === Math.round(ra * 100) && g === rg && Math.round(c * 100) === Math.round(rc * 100)
  against = same
    ? `<p class='versus'>The sliders are at your request's ${where}: the formula predicts ${f2(there)}× there; ` +
      `your request measured ${f2(rs)}×.</p>`
    : `<p class='versus'>The sliders have moved from your request's ${where}: the formula predicts ${f2(here)}× ` +
      `at the sliders and ${f2(there)}× there; your request measured ${f2(rs)}× there.</p>`
}
const html = {formula, table: lecture_table, note: `<p class='cost-note'>${cost_note}</p>`, versus: against}
for (const [pane, text] of [[readout, html.formula], [table, html.table], [note, html.note], [versus, html.versus]])
  if (pane != null) pane.setv({text: escape(text)}, quiet)
return html
