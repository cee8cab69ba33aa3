// The lab's closed-form formulas in the browser, function by function as in Python, so a slider
// whose effect is one of them redraws without asking the server (uikit/browser.py loads this file
// as the first part of a page's CustomJS code; tests/uikit/test_js_analytic.py checks every function
// against its Python original at many points).
//
//   lab/core/analytic.py     expected_tokens, round_cost, speedup, break_even_alpha, best_gamma
//   lab/experiments/breakeven.py    ALPHAS, numbers
//   lab/speed/costs.py        profile_round_cost, profile_speedup (CostProfile.round_cost, .speedup)
//   lab/experiments/display.py      regions
//   lab/core/sampling.py     accept_probability; lab/experiments/twotokens.py thresholds
//   Python's format(x, ".Nf")   fixed
//   lab/i18n: number (number, number_format), plural (plural_rule), str.format's named fields  fill
//
// Inputs are numbers the page's own sliders produce (already in range), so the Python functions'
// checks of their input are not repeated here.
const analytic = (() => {
  const MAX_GAMMA = 16

  // E = (1 − α^(γ+1)) / (1 − α), tokens committed per round; γ + 1 at α = 1 (eq. 1).
  function expected_tokens(alpha, gamma) {
    return alpha === 1 ? gamma + 1 : (1 - alpha ** (gamma + 1)) / (1 - alpha)
  }

  // Cost of one round in target calls: γ draft calls and one verify pass, 1 + γc.
  function round_cost(gamma, c) {
    return 1 + gamma * c
  }

  // Expected wall-time speed-up over plain decoding, E / (1 + γc) (Theorem 3.8).
  function speedup(alpha, gamma, c) {
    return expected_tokens(alpha, gamma) / round_cost(gamma, c)
  }

  // The α at which speed-up = 1, by bisection as in Python; NaN when even α = 1 does not break even.
  function break_even_alpha(gamma, c, tol = 1e-10) {
    let lo = 0, hi = 1
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2
      if (speedup(mid, gamma, c) < 1) lo = mid
      else hi = mid
      if (hi - lo < tol) break
    }
    return speedup(1, gamma, c) >= 1 ? hi : NaN
  }

  // The γ in 1..max_gamma with the highest speed-up for this α and c (the first on a tie), and it.
  function best_gamma(alpha, c, max_gamma = MAX_GAMMA) {
    let best = 1, best_speedup = speedup(alpha, 1, c)
    for (let g = 2; g <= max_gamma; g++) {
      const s = speedup(alpha, g, c)
      if (s > best_speedup) { best = g; best_speedup = s }
    }
    return [best, best_speedup]
  }

  // lab/experiments/breakeven.py: the α of the speed-up curve, and every number chapter 10 shows.
  const ALPHAS = Array.from({length: 201}, (_, i) => i === 200 ? 1 : i * (1 / 200))

  function numbers(a, g, c, max_gamma) {
    const [best, best_s] = best_gamma(a, c, max_gamma)
    const per_gamma = []
    for (let k = 1; k <= max_gamma; k++) per_gamma.push(speedup(a, k, c))
    return {E: expected_tokens(a, g), cost: round_cost(g, c), speedup: speedup(a, g, c),
            break_even: break_even_alpha(g, c), curve: ALPHAS.map((x) => speedup(x, g, c)),
            per_gamma, best_gamma: best, best_speedup: best_s}
  }

  // lab/speed/costs.py: a round with this machine's verify pass; `verify[k]` is a pass over k + 1
  // positions in target calls (CostProfile.verify_seconds ÷ its unit), the longest for longer ones.
  function profile_round_cost(verify, gamma, c) {
    return verify[Math.min(Math.max(gamma, 0), verify.length - 1)] + gamma * c
  }

  function profile_speedup(verify, alpha, gamma, c) {
    return expected_tokens(alpha, gamma) / profile_round_cost(verify, gamma, c)
  }

  // lab/experiments/display.py: where both agree min(p, q), the draft too eager (q − p)+, too shy (p − q)+.
  function regions(p, q) {
    return {agree: p.map((x, i) => Math.min(x, q[i])), eager: p.map((x, i) => Math.max(q[i] - x, 0)),
            shy: p.map((x, i) => Math.max(x - q[i], 0))}
  }

  // lab/core/sampling.py: min(1, p(x) / q(x)) for a token drawn from q; 0 where q gives it nothing.
  function accept_probability(p, q, token) {
    return q[token] <= 0 ? 0 : Math.min(1, p[token] / q[token])
  }

  // lab/experiments/twotokens.py: the accept probability of A and B for p(A) and q(A).
  function thresholds(p_a, q_a) {
    const p = [p_a, 1 - p_a], q = [q_a, 1 - q_a]
    return [accept_probability(p, q, 0), accept_probability(p, q, 1)]
  }

  // Python's f"{x:.{d}f}": toFixed, but an exact tie (an odd multiple of 1 / 2^(d+1)) goes to the even
  // digit, so a page's text says what Python's says (0.125 → "0.12", where toFixed gives "0.13").
  function fixed(x, d) {
    const twice = x * 2 ** (d + 1)
    if (Number.isInteger(twice) && Math.abs(twice) % 2 === 1) {
      const k = Math.floor(x * 10 ** d), text = ((k % 2 === 0 ? k : k + 1) / 10 ** d).toFixed(d)
      return x < 0 && !text.startsWith("-") ? "-" + text : text       // -0.5 → "-0", as Python writes it
    }
    return x.toFixed(d)
  }

  // lab/i18n/formats.py number: `x` with `d` decimals as the page's language writes it, `format` being
  // uikit.language.browser_language()'s. English is Python's own formatting (fixed; "," between
  // thousands when `group`); another language is Babel's: the shortest decimal that reads back as x
  // (JS's String is Python's repr), rounded half to even, with the language's decimal sign and
  // thousands separator. So 2.675 is "2.67" in English (its binary value is below the tie), "2,68" in Spanish.
  function number(x, d, format, group = false) {
    let int, frac
    if (format.python) {
      [int, frac] = fixed(Math.abs(x), d).split(".")
    } else {
      const [, whole, part = "", exp = "0"] = /^(\d+)(?:\.(\d+))?(?:e([-+]\d+))?$/.exec(String(Math.abs(x)))
      let digits = whole + part, point = whole.length + Number(exp)       // x = 0.digits × 10^point
      if (point < 1) { digits = "0".repeat(1 - point) + digits; point = 1 }
      digits = digits.padEnd(point + d + 1, "0")
      const kept = digits.slice(0, point + d), rest = digits.slice(point + d)
      const odd = Number(kept[kept.length - 1]) % 2 === 1
      const up = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || odd))
      const rounded = (BigInt(kept) + (up ? 1n : 0n)).toString().padStart(d + 1, "0")
      int = rounded.slice(0, rounded.length - d)
      frac = d ? rounded.slice(rounded.length - d) : undefined
    }
    if (group) int = int.replace(/\B(?=(\d{3})+$)/g, format.python ? "," : format.group)
    const sign = x < 0 || Object.is(x, -0) ? "-" : ""
    return sign + int + (frac === undefined ? "" : (format.python ? "." : format.decimal) + frac)
  }

  // lab/i18n plural_rule: the page's language's plural rule (its catalog's C expression, which JS
  // reads alike; nothing but n, digits and operators is let through) as a function from a count to
  // the index of its form, the order uikit.language.plural_samples hands a message's forms in.
  function plural(rule) {
    if (!/^[n0-9\s()?:!=<>&|%+*\/-]*$/.test(rule)) throw new Error(`not a plural rule: ${rule}`)
    const index = new Function("n", `return Number(${rule})`)
    return (forms, n) => forms[Math.min(index(n), forms.length - 1)]
  }

  // str.format's named fields: fill("{n} of {total}", {n: 1, total: 3}) is "1 of 3" ("{{" is "{").
  function fill(template, values) {
    return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (m, name) => (name === undefined ? m[0] : String(values[name])))
  }

  return {MAX_GAMMA, fixed, number, plural, fill, expected_tokens, round_cost, speedup, break_even_alpha, best_gamma,
          ALPHAS, numbers, profile_round_cost, profile_speedup, regions, accept_probability, thresholds}
})()
