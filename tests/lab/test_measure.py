"""lab.speed.measure on a prompt set, the held-out prompts, and `python -m lab measure` without --prompt:
the lecturer's answer per category (speed-up, α, c, a verdict), a time estimate and the time left."""
import json

import pytest

from lab.core.request import Request
from lab.__main__ import main
from lab.core.engine import generate
from lab.speed import payoff
from lab.speed.measure import measure_set
from lab.prompts import HELDOUT_PROMPTS, PromptError, heldout_prompts
from lab.pairs.tiny import tiny_pair
from tests.helpers import save_tiny

PROMPTS = {"stories": ["the cat sat on the", "a dog ran under the"],
           "code": ["the big cat", "a small dog sat"],
           "json": ["on the mat and then"]}


@pytest.fixture(scope="module")
def pair():
    return tiny_pair()


DRAFTINGS = [("model", "constant"), ("lookup", "heuristic"), ("hybrid", "confidence:0.3")]


@pytest.fixture(scope="module")
def report(pair):
    return measure_set(pair, PROMPTS, Request((), gamma=3, max_new_tokens=8), draftings=DRAFTINGS)


@pytest.mark.parametrize("drafter, policy", DRAFTINGS)
def test_a_prompt_set_is_measured_per_category_and_drafting(pair, report, drafter, policy):
    run = report["draftings"][f"{drafter} ({policy})"]
    rows = run["categories"]
    assert list(rows) == list(PROMPTS) and [r["prompts"] for r in rows.values()] == [2, 2, 1]
    for cat, prompts in PROMPTS.items():   # α and tokens per call are pooled over the rounds, as decoded
        traces = [generate(pair, Request(pair.tokenizer.encode(p, add_special_tokens=False), gamma=3, max_new_tokens=8, drafter=drafter, policy=policy)) for p in prompts]
        drafted = sum(t.drafted for t in traces)
        kept, rejected = sum(t.accepted for t in traces), sum(t.rejected for t in traces)   # α per guess judged
        assert rows[cat]["alpha"] == pytest.approx(kept / (kept + rejected) if kept + rejected else 0.0)
        assert rows[cat]["tokens_per_call"] == pytest.approx(
            sum(len(t.new_ids) for t in traces) / sum(t.target_calls for t in traces))
        assert rows[cat]["exact"] is True and rows[cat]["speedup"] > 0
        assert (rows[cat]["c"] > 0) == (drafter != "lookup" or drafted > 0)
    overall = run["overall"]
    assert overall["alpha"] == pytest.approx(sum(r["alpha"] for r in rows.values()) / 3)


def test_each_category_and_the_overall_say_how_often_it_guessed_and_whether_it_pays(pair, report):
    for (drafter, policy), run in zip(DRAFTINGS, report["draftings"].values()):
        rows = run["categories"]
        for cat, prompts in PROMPTS.items():
            traces = [generate(pair, Request(pair.tokenizer.encode(p, add_special_tokens=False), gamma=3, max_new_tokens=8, drafter=drafter, policy=policy)) for p in prompts]
            assert rows[cat]["rounds"] == sum(len(t.rounds) for t in traces)
            assert rows[cat]["drafted_rounds"] == sum(1 for t in traces for r in t.rounds if r.guesses)
            assert rows[cat]["verdict"] == payoff.verdict(rows[cat]["speedup"], rows[cat]["drafted_rounds"],
                                                          rows[cat]["rounds"])
        overall = run["overall"]
        assert overall["rounds"] == sum(r["rounds"] for r in rows.values())
        assert overall["verdict"] == payoff.overall_verdict(rows, overall["speedup"])
        assert "goals" not in run            # the project's own goals are the benchmark's (bench/defaults.py)


def test_verdicts_speak_of_paying_off_within_noise():
    assert payoff.verdict(1.42, 20, 31) == "pays off: 1.42× the speed of the target alone (drafted in 20 of 31 rounds; plain steps elsewhere)"
    assert payoff.verdict(0.99, 6, 40).startswith("level with the target alone (0.99×, within noise): its guesses "
                                                  "were rarely kept, so it mostly took plain steps")
    assert payoff.verdict(0.80, 40, 40).startswith("slower than the target alone (0.80×)")
    assert payoff.drafting_words(0, 12) == "no guesses: plain steps in all 12 rounds"
    rows = {"code": {"speedup": 1.5}, "facts": {"speedup": 1.01}, "edit": {"speedup": 2.8}}
    assert payoff.overall_verdict(rows, 1.77) == ("Yes, your pair pays off: 1.77× overall — faster on code, edit; "
                                                  "level on facts (plain steps where guesses miss).")
    assert payoff.overall_verdict({"facts": {"speedup": 0.9}}, 0.9).startswith("No, your pair does not pay off")
    assert payoff.duration(42) == "about 42 s" and payoff.duration(83) == "about 1 min 20 s"
    assert payoff.duration(725) == "about 12 min"


def test_per_category_limits_the_prompts(pair):
    report = measure_set(pair, PROMPTS, Request((), max_new_tokens=4), per_category=1)
    (run,) = report["draftings"].values()           # the pair's own drafting
    assert [r["prompts"] for r in run["categories"].values()] == [1, 1, 1]
    assert run["drafter"] == pair.drafter


def test_the_held_out_set_has_six_categories_and_a_separate_dev_set():
    sets = heldout_prompts()
    assert list(sets) == ["stories", "facts", "instructions", "code", "json", "edit"]
    assert all(len(v) >= 5 and all(isinstance(p, str) and p for p in v) for v in sets.values())
    assert len(sets["edit"]) >= 8
    dev = heldout_prompts(HELDOUT_PROMPTS.parent / "dev_prompts.json")
    assert set(dev) == set(sets)
    assert not {p for ps in dev.values() for p in ps} & {p for ps in sets.values() for p in ps}


def test_a_bad_prompt_set_gets_one_sentence(tmp_path):
    bad = tmp_path / "set.json"
    bad.write_text('{"code": "not a list"}')
    with pytest.raises(PromptError, match="JSON object of category → list of prompts"):
        heldout_prompts(bad)
    with pytest.raises(PromptError, match="could not be read"):
        heldout_prompts(tmp_path / "missing.json")


def pair_policy():
    from lab.pairs.load import PairSpec
    return PairSpec.__dataclass_fields__["policy"].default     # a --target/--draft pair's policy


def test_the_command_line_measures_a_prompt_set(tmp_path, capsys):
    target, draft = save_tiny(tmp_path / "target", layers=2), save_tiny(tmp_path / "draft", seed=1)
    prompts = tmp_path / "set.json"
    prompts.write_text(json.dumps({"_about": "a note", "code": ["the cat sat", "a dog ran"], "json": ["on the mat"]}))
    args = ["measure", "--target", str(target), "--draft", str(draft), "--prompts", str(prompts),
            "--per-category", "1", "--max-new-tokens", "4"]
    assert main(args + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [run["drafter"] for run in report["draftings"].values()] == ["model"]     # the pair's own drafting
    for run in report["draftings"].values():
        assert list(run["categories"]) == ["code", "json"] and run["overall"]["prompts"] == 2
    assert main(args + ["--drafter", "lookup", "--policy", "heuristic"]) == 0   # the table, each row's verdict
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert "Will lookup (heuristic) pay off?" in out and "overall" in out and "goal" not in out
    assert out.count("the target alone") == 2 and ("pays off" in out or "level with" in out or "slower" in out)
    assert "Measuring 2 prompts of 4 new tokens, each decoded plainly and by lookup (heuristic): about" in err
    assert "left" in err.splitlines()[-1]
    lecturer = args[:-4] + ["--max-new-tokens", "4", "--json"]       # no --per-category: one prompt each
    assert main(lecturer) == 0
    assert json.loads(capsys.readouterr().out)["draftings"]["model (constant)"]["overall"]["prompts"] == 2
    assert main(lecturer + ["--all"]) == 0
    assert json.loads(capsys.readouterr().out)["draftings"]["model (constant)"]["overall"]["prompts"] == 3
    assert main(lecturer + ["--all", "--per-category", "1"]) == 2
    assert "--all measures every prompt" in capsys.readouterr().err
    assert main(args + ["--policy", "sometimes"]) == 2
    assert "policy" in capsys.readouterr().err
    assert main(args + ["--drafter", "lookup@constant:6", "--drafter", "hybrid", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["draftings"]
    assert [(r["drafter"], r["policy"]) for r in runs.values()] == [("lookup", "constant:6"), ("hybrid", pair_policy())]
    assert main(args + ["--drafter", "magic"]) == 2
    assert "no drafter 'magic'" in capsys.readouterr().err
    assert main(["measure", "--target", str(target), "--draft", str(draft), "--prompts",
                 str(tmp_path / "missing.json")]) == 2
    assert "could not be read" in capsys.readouterr().err


def test_a_measurement_records_the_load_it_ran_under(pair, monkeypatch):
    from lab.speed import costs
    from lab.speed.measure import measure
    ids = pair.tokenizer.encode("the cat sat")
    monkeypatch.setattr(costs, "load_average", lambda: 0.5)
    calm = measure(pair, Request(ids, gamma=2, max_new_tokens=4))[0]
    assert calm.load == 0.5 and calm.cores == costs.cores() and not calm.busy
    monkeypatch.setattr(costs, "load_average", lambda: costs.cores() + 1.0)
    assert measure(pair, Request(ids, gamma=2, max_new_tokens=4))[0].busy


def test_the_time_left_follows_the_estimate_scaled_by_the_pace_so_far(pair, monkeypatch):
    assert payoff.estimate_seconds(0.02, prompts=6, new_tokens=50, profile_seconds=4.0) == pytest.approx(
        4.0 + 6 * 50 * 0.02 * (1 + payoff.SPEC_STEP))
    clock = payoff.TimeLeft(pair, {"code": ["a", "b"]}, [("hybrid", "auto:12")], new_tokens=8)
    assert clock.profile > 0 and clock.count == 2          # the auto policy needs the profile measured
    now = [clock.start]
    monkeypatch.setattr(payoff.time, "monotonic", lambda: now[0])
    clock.estimate, clock.profile = 100.0, 20.0
    now[0] += 10
    assert clock.left(0.0) == pytest.approx(90.0)          # nothing measured yet: the estimate
    now[0] += 50                                           # halfway after 60 s, planned for 20 + 40 s
    assert clock.left(0.5) == pytest.approx(40.0)
    now[0] += 60                                           # halfway took twice the plan: twice the rest
    assert clock.left(0.5) == pytest.approx(80.0)
    lines = []
    clock.wrap(lambda f, m: lines.append(m))(0.5, "measuring code (2 of 2 prompts)")
    assert lines == ["measuring code (2 of 2 prompts) — about 1 min 20 s left"]
