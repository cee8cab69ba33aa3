"""lab.speed.measure on a prompt set, the held-out prompts, and `python -m lab measure` without --prompt."""
import json

import pytest

from lab.__main__ import main
from lab.core.engine import generate
from lab.speed.measure import GOALS, measure_set
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
    return measure_set(pair, PROMPTS, gamma=3, max_new_tokens=8, draftings=DRAFTINGS)


@pytest.mark.parametrize("drafter, policy", DRAFTINGS)
def test_a_prompt_set_is_measured_per_category_and_drafting(pair, report, drafter, policy):
    run = report["draftings"][f"{drafter} ({policy})"]
    rows = run["categories"]
    assert list(rows) == list(PROMPTS) and [r["prompts"] for r in rows.values()] == [2, 2, 1]
    for cat, prompts in PROMPTS.items():   # α and tokens per call are pooled over the rounds, as decoded
        traces = [generate(pair, pair.tokenizer.encode(p, add_special_tokens=False), gamma=3, max_new_tokens=8,
                           drafter=drafter, policy=policy) for p in prompts]
        drafted = sum(t.drafted for t in traces)
        assert rows[cat]["alpha"] == pytest.approx(sum(t.accepted for t in traces) / max(1, drafted))
        assert rows[cat]["tokens_per_call"] == pytest.approx(
            sum(len(t.new_ids) for t in traces) / sum(t.target_calls for t in traces))
        assert rows[cat]["exact"] is True and rows[cat]["speedup"] > 0
        assert (rows[cat]["c"] > 0) == (drafter != "lookup" or drafted > 0)
    overall = run["overall"]
    assert overall["alpha"] == pytest.approx(sum(r["alpha"] for r in rows.values()) / 3)


def test_the_goals_are_judged_on_each_category(report):
    for run in report["draftings"].values():
        rows, goals = run["categories"], run["goals"]
        slowest = min(r["speedup"] for r in rows.values())
        assert goals["never_slower"]["value"] == slowest
        assert goals["never_slower"]["met"] == (slowest >= GOALS["never_slower"])
        for cat in ("code", "json"):
            assert goals[cat]["value"] == rows[cat]["speedup"]
            assert goals[cat]["met"] == (rows[cat]["speedup"] >= GOALS[cat])
        assert goals["edit"] == {**goals["edit"], "value": None, "met": None}     # not measured
        assert goals["exact"]["met"] is True


def test_per_category_limits_the_prompts(pair):
    report = measure_set(pair, PROMPTS, max_new_tokens=4, per_category=1)
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
    assert [run["drafter"] for run in report["draftings"].values()] == ["model", "lookup", "hybrid"]
    for run in report["draftings"].values():
        assert list(run["categories"]) == ["code", "json"] and run["overall"]["prompts"] == 2
        assert set(run["goals"]) == {"never_slower", "code", "json", "edit", "exact"}
    assert main(args + ["--drafter", "lookup", "--policy", "heuristic"]) == 0   # the table, each goal judged
    out = capsys.readouterr().out
    assert "lookup (heuristic)" in out and "overall" in out and out.count("goal ") == 5
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
    calm = measure(pair, ids, gamma=2, max_new_tokens=4)[0]
    assert calm.load == 0.5 and calm.cores == costs.cores() and not calm.busy
    monkeypatch.setattr(costs, "load_average", lambda: costs.cores() + 1.0)
    assert measure(pair, ids, gamma=2, max_new_tokens=4)[0].busy
