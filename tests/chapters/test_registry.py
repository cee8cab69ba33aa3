"""The page registry is derived from the page classes: no second list to drift from them."""
import re
from pathlib import Path

import pytest

from chapters import registry
from chapters.base import Chapter


def test_pages_come_in_reading_order_with_the_bridge_after_chapter_four():
    pages = registry.pages()
    assert [p.number for p in pages] == [1, 2, 3, 4, None, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert pages[4].slug == "questions" and pages[4].part == "II"
    assert [p.slug for p in pages if p.part == "IV"] == ["cheaper-guesses", "predictable"]
    assert len({p.slug for p in pages}) == len(pages)                    # one URL per page


def test_metadata_is_the_classes_own():
    for page in registry.chapter_pages():
        cls = page.chapter_class
        assert issubclass(cls, Chapter)
        assert (page.slug, page.part, page.title) == (cls.slug, cls.part, cls.title)
        assert page.part in registry.PARTS and page.title and page.kicker
        assert page.kicker == registry.kicker(cls)


def test_the_question_count_is_counted_from_the_chapters(monkeypatch):
    asked = [p for p in registry.chapter_pages() if p.chapter_class.question]
    assert registry.question_count() == len(asked) == 12
    ch11 = registry.page_by_number(11).chapter_class
    monkeypatch.setattr(ch11, "question", "One more?")
    assert registry.question_count() == 13


@pytest.mark.parametrize("slug", ["", "questions", "timeline", "predictable"])
def test_neighbours_run_from_the_landing_page_to_the_last_chapter(slug):
    prev, nxt = registry.neighbours(slug)
    if slug == "":
        assert prev is None and nxt.number == 1
    elif slug == "questions":
        assert prev.number == 4 and nxt.number == 5
    elif slug == "timeline":
        assert prev.number == 10 and nxt.slug == "cheaper-guesses"
    else:
        assert prev.slug == "cheaper-guesses" and nxt is None


def test_a_built_chapter_says_how_many_questions_there_are(state):
    view = registry.build(registry.page_by_slug("dilemma"), state)
    assert view.predict.total == registry.question_count()
    assert "question 1 of 12" in view.predict.__panel__().objects[0].object


def test_a_card_counts_questions_not_chapters(state):
    """Chapter 11 asks none, so chapter 13's question is the twelfth, not "13 of 12"."""
    view = registry.build(registry.page_by_slug("predictable"), state)
    assert view.predict.position == 12 == registry.question_count()
    assert "question 12 of 12" in view.predict.__panel__().objects[0].object


def test_part_four_is_beyond_the_lecture_and_every_kicker_counts_the_parts():
    assert list(registry.PARTS) == ["I", "II", "III", "IV"]
    assert registry.PARTS["IV"]["name"] == "Beyond the lecture"
    assert [p["kicker"].split(" · ")[0] for p in registry.PARTS.values()] == [
        "Part I of IV", "Part II of IV", "Part III of IV", "Part IV of IV"]
    for part in registry.PARTS.values():
        assert part["title"] and part["intro"] and part["summary"]


def test_no_part_count_is_written_by_hand():
    """The kickers are derived from PARTS: adding a part renames every one of them."""
    src = Path(registry.__file__).read_text()
    assert not re.search(r"\bof (I|II|III|IV|V|VI)\b", src)
    assert registry.PARTS["I"]["kicker"].endswith(f"of {list(registry.PARTS)[-1]} · Intuition & motivation")


def heading_text(view) -> str:
    head = view.header()
    return (head.objects[0] if hasattr(head, "objects") else head).object


def test_headings_and_predict_cards_count_questions_the_same_way(state):
    """Chapter 7 answers the third of the bridge page's five questions and asks the seventh
    predict question: its heading poses the bridge's question, unnumbered, and only the card counts
    ("question 7 of 12"), as the lecturer's poll does. No heading numbers a question."""
    from chapters.bridge import QUESTIONS
    view = registry.build(registry.page_by_slug("correction"), state)
    assert "What do we write after a miss?" in heading_text(view)
    assert "question 7 of 12" in view.predict.__panel__().objects[0].object
    for page in registry.chapter_pages():
        view = registry.build(page, state)
        assert not re.search(r"question\W*\d", heading_text(view), re.I), (page.number, heading_text(view))
        assert page.kicker in heading_text(view)
        if view.predict is not None:
            assert view.predict.position == registry.question_position(page.chapter_class)
    answering = [c for chapters, _, _ in QUESTIONS for c in chapters]
    assert [registry.kicker(c) for c in answering] == [
        "How can one call check many tokens?", "When is a guess good enough to keep?",
        "What do we write after a miss?", "How do the pieces fit together?",
        "How do the pieces fit together? (continued)", "When is it really faster?"]
