"""The app's pieces without a browser: the registry, the loader, the settings card."""
import pytest


@pytest.mark.parametrize("slug", ["dilemma", "easy-words", "checking", "guess-check-keep", "questions"])
def test_registry_lists_parts_one_and_two(slug):
    from chapters.registry import page_by_slug, pages
    assert page_by_slug(slug) is not None
    assert [p.number for p in pages() if p.number] == list(range(1, 14))


def test_pair_loader_reports_ready_or_one_sentence(monkeypatch):
    from serving.runtime import PairInUse
    from shell.frame import loading
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    loader = loading.PairLoader()
    loader.load()
    assert loader.ready and loader.fraction == 1.0 and "Loaded" in loader.message

    def broken():
        from lab.errors import PairError   # a lab error: its sentence (path-free) reaches the page
        raise PairError("The target folder has no config.json; point to a saved model folder.")
    pair_in_use = PairInUse()
    monkeypatch.setattr(pair_in_use, "service", broken)
    failing = loading.PairLoader(pair_in_use)
    failing.load()
    assert not failing.ready and "no config.json" in failing.error


def test_the_settings_card_builds_its_widgets_when_first_opened(state):
    from shell.frame.app import settings_card
    card = settings_card(state)
    assert card.collapsed and len(card.objects) == 0          # a page that never opens it pays nothing
    state.prompt = "the dog ran"
    card.collapsed = False
    (panel,) = card.objects
    prompt_box = panel.objects[0]
    assert "settings-panel" in panel.css_classes and prompt_box.value == "the dog ran"   # today's settings
    card.collapsed, card.collapsed = True, False
    assert card.objects == [panel]                            # built once


def test_the_tabs_of_one_browser_share_one_click_allowance(the_class):
    from bokeh.document import Document

    from serving.workqueue import Allowance
    browsers = the_class.browsers
    browsers.clicks = Allowance(rate=0.0, burst=3)
    tabs, other, unknown = [Document(), Document()], Document(), Document()
    for doc in tabs:
        browsers.remember(doc, "a" * 32)
    browsers.remember(other, "b" * 32)
    assert [browsers.click_allowed(tabs[i % 2]) for i in range(4)] == [True, True, True, False]
    assert browsers.click_allowed(other) and browsers.click_allowed(unknown)   # others keep theirs


def test_a_browser_clicking_too_fast_is_dropped_while_another_clicks_on(the_class):
    """The click guard (intercept.clicks) with the check each served page gets: its browser's allowance."""
    import panel as pn
    from panel.io.state import set_curdoc

    from serving.workqueue import Allowance
    from tests.helpers import ServedPage
    from intercept.clicks import allow_clicks_when, on_click
    browsers = the_class.browsers
    browsers.clicks = Allowance(rate=0.0, burst=2)
    tabs, other = [ServedPage(), ServedPage()], ServedPage()
    for page in tabs:
        browsers.remember(page, "a" * 32)
    browsers.remember(other, "b" * 32)
    for page in (*tabs, other):
        allow_clicks_when(page, browsers.click_allowed)
    button, ran = pn.widgets.Button(label="Draw"), []
    on_click(button, lambda e: ran.append(pn.state.curdoc))
    for page in (tabs[0], tabs[1], tabs[0], other, tabs[1], other):
        with set_curdoc(page):
            button.clicks += 1
    assert ran == [tabs[0], tabs[1], other, other]    # the tabs of browser a share its 2 clicks


def test_a_lecturers_controls_join_the_page_once_it_is_ready(monkeypatch, the_class):
    """The browser says a page is ready (which starts its fill) only once everything in its frame is
    drawn, and the class poll's histograms in a collapsed card never are: the lecturer's controls
    are not in the frame but put in when the page is ready, under the server's load line."""
    import asyncio

    import panel as pn

    from shell.lecturer import controls as lecturer
    from shell.frame.app import PageAsk, SessionPage

    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    panel = lecturer.LecturerPanel(the_class, "s1", chapter=10)
    page = SessionPage(PageAsk("breakeven"), "b" * 32, None, panel, the_class)

    def cards():
        return [card.title for card in page.template.main[0].select(pn.Card)]

    assert "Lecturer controls" not in cards() and "Class poll" not in cards()
    asyncio.run(page.show_lecturer())
    assert "Lecturer controls" in cards() and "Class poll" in cards()
    load, _ = page.lecturer_slot.objects
    assert "Server keeping up" in load.object

    refusal = lecturer._refusal("That lecturer token is not right.")   # a refusal: at once
    assert page.__class__(PageAsk("breakeven"), "b" * 32, None, refusal).lecturer_slot.objects == [refusal]


def test_a_page_filled_at_once_is_the_served_frame_with_its_content(state, the_class):
    """`SessionPage.fill` (the served tour, every exported page): the student's badge, the settings
    card or the sentence given in its place, and the content page_content makes, in the frame."""
    import panel as pn

    from shell.frame.app import PageAsk, SessionPage

    page = SessionPage(PageAsk("guess-check-keep"), "b" * 32, None, None, the_class)
    note = pn.pane.HTML("offline")
    content = page.fill(state, settings=note)
    assert page.content.objects == [content.view] and type(content.chapter).slug == "guess-check-keep"
    assert "pair-badge" in page.badge_slot.objects[0].css_classes and page.settings_slot.objects == [note]
    served = SessionPage(PageAsk("guess-check-keep"), "b" * 32, None, None, the_class)
    served.fill(state)
    assert isinstance(served.settings_slot.objects[0], pn.Card)         # the student's settings card
    tour = SessionPage(PageAsk(tour=True, step=5), "b" * 32, None, None, the_class)
    filled = tour.fill(state, settings=note)
    assert filled.tour.deck.step == 5 and tour.settings_slot.objects == []   # the projector: no settings
