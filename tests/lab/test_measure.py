"""lab.measure on a prompt set, the held-out prompts, and `python -m lab measure` without --prompt."""
import json

import pytest

from lab.__main__ import main
from lab.engine import generate
from lab.measure import GOALS, measure_set
from lab.prompts import PromptError, heldout_prompts
from lab.tiny import tiny_pair
from tests.lab.test_pair import save_tiny

PROMPTS = {"stories": ["the cat sat on the", "a dog ran under the"],
           "code": ["the big cat", "a small dog sat"],
           "json": ["on the mat and then"]}


@pytest.fixture(scope="module")
def pair():
    return tiny_pair()


def test_a_prompt_set_is_measured_per_category_and_judged_on_the_goals(pair):
    report = measure_set(pair, PROMPTS, gamma=3, max_new_tokens=8)
    rows = report["categories"]
    assert list(rows) == list(PROMPTS) and [r["prompts"] for r in rows.values()] == [2, 2, 1]
    for cat, prompts in PROMPTS.items():   # α is pooled over the category's rounds, as decoded
        traces = [generate(pair, pair.tokenizer.encode(p, add_special_tokens=False), gamma=3, max_new_tokens=8)
                  for p in prompts]
        assert rows[cat]["alpha"] == pytest.approx(sum(t.accepted for t in traces) / sum(t.drafted for t in traces))
        assert rows[cat]["exact"] is True and rows[cat]["c"] > 0 and rows[cat]["speedup"] > 0
    overall = report["overall"]
    assert overall["alpha"] == pytest.approx(sum(r["alpha"] for r in rows.values()) / 3)
    goals = report["goals"]
    assert goals["alpha_overall"]["met"] == (overall["alpha"] >= GOALS["alpha_overall"])
    assert goals["c"]["met"] == (overall["c"] <= GOALS["c_max"])
    code_json = (rows["code"]["speedup"] + rows["json"]["speedup"]) / 2
    assert goals["speedup_code_json"]["value"] == pytest.approx(code_json)
    assert goals["speedup_code_json"]["met"] == (code_json >= GOALS["speedup_code_json"])


def test_per_category_limits_the_prompts(pair):
    report = measure_set(pair, PROMPTS, max_new_tokens=4, per_category=1)
    assert [r["prompts"] for r in report["categories"].values()] == [1, 1, 1]


def test_without_code_or_json_the_speedup_goal_is_not_judged(pair):
    report = measure_set(pair, {"stories": PROMPTS["stories"][:1]}, max_new_tokens=4)
    assert report["goals"]["speedup_code_json"] == {**report["goals"]["speedup_code_json"], "value": None,
                                                     "met": None}


def test_the_held_out_set_has_the_five_categories():
    sets = heldout_prompts()
    assert list(sets) == ["stories", "facts", "instructions", "code", "json"]
    assert all(len(v) >= 5 and all(isinstance(p, str) and p for p in v) for v in sets.values())


def test_a_bad_prompt_set_gets_one_sentence(tmp_path):
    bad = tmp_path / "set.json"
    bad.write_text('{"code": "not a list"}')
    with pytest.raises(PromptError, match="JSON object of category → list of prompts"):
        heldout_prompts(bad)
    with pytest.raises(PromptError, match="could not be read"):
        heldout_prompts(tmp_path / "missing.json")


def test_the_command_line_measures_a_prompt_set(tmp_path, capsys):
    target, draft = save_tiny(tmp_path / "target", layers=2), save_tiny(tmp_path / "draft", seed=1)
    prompts = tmp_path / "set.json"
    prompts.write_text(json.dumps({"_about": "a note", "code": ["the cat sat", "a dog ran"], "json": ["on the mat"]}))
    args = ["measure", "--target", str(target), "--draft", str(draft), "--prompts", str(prompts),
            "--per-category", "1", "--max-new-tokens", "4"]
    assert main(args + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report["categories"]) == ["code", "json"] and report["overall"]["prompts"] == 2
    assert set(report["goals"]) == {"alpha_overall", "c", "speedup_code_json"}
    assert main(args) == 0                                   # the table, and each goal judged
    out = capsys.readouterr().out
    assert "overall" in out and out.count("goal ") == 3
    assert main(["measure", "--target", str(target), "--draft", str(draft), "--prompts",
                 str(tmp_path / "missing.json")]) == 2
    assert "could not be read" in capsys.readouterr().err
