"""The page registry is derived from the page classes: no second list to drift from them."""
import pytest

from chapters import registry
from chapters.base import Chapter


def test_pages_come_in_reading_order_with_the_bridge_after_chapter_four():
    pages = registry.pages()
    assert [p.number for p in pages] == [1, 2, 3, 4, None, 5, 6, 7, 8, 9, 10, 11]
    assert pages[4].slug == "questions" and pages[4].part == "II"
    assert len({p.slug for p in pages}) == len(pages)                    # one URL per page


def test_metadata_is_the_classes_own():
    for page in registry.chapter_pages():
        cls = page.chapter_class
        assert issubclass(cls, Chapter)
        assert (page.slug, page.part, page.kicker, page.title) == (cls.slug, cls.part, cls.kicker, cls.title)
        assert page.part in registry.PARTS and page.title and page.kicker


def test_the_question_count_is_counted_from_the_chapters(monkeypatch):
    asked = [p for p in registry.chapter_pages() if p.chapter_class.question]
    assert registry.question_count() == len(asked) == 10
    ch11 = registry.page_by_number(11).chapter_class
    monkeypatch.setattr(ch11, "question", "One more?")
    assert registry.question_count() == 11


@pytest.mark.parametrize("slug", ["", "questions", "timeline"])
def test_neighbours_run_from_the_landing_page_to_the_last_chapter(slug):
    prev, nxt = registry.neighbours(slug)
    if slug == "":
        assert prev is None and nxt.number == 1
    elif slug == "questions":
        assert prev.number == 4 and nxt.number == 5
    else:
        assert prev.number == 10 and nxt is None


def test_a_built_chapter_says_how_many_questions_there_are(state):
    view = registry.build(registry.page_by_slug("dilemma"), state)
    assert view.predict.total == registry.question_count()
    assert "question 1 of 10" in view.predict.__panel__().objects[0].object
