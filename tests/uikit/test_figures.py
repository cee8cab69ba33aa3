"""Figures: no tools, type legible on a projector."""
import panel as pn


def test_lab_figures_have_no_tools_to_drag_a_plot_away():
    from uikit.figures import static_figure
    fig = static_figure(height=100, width=100)
    assert fig.toolbar_location is None and fig.toolbar.tools == []


def test_figures_get_projector_type_sizes(make_chapter):
    from bokeh.models import Label

    from chapters.ch06_accept_rule import AcceptRuleChapter
    from uikit.figures import figure_type_sizes, finish_figures, static_figure
    fig = static_figure(height=100, width=100, title="t")
    fig.line([0, 1], [0, 1], legend_label="a line")
    fig.legend.label_text_font_size = "10px"
    fig.add_layout(Label(x=0, y=0, text="small", text_font_size="9pt"))
    fig.add_layout(Label(x=0, y=0, text="big", text_font_size="20px"))
    finish_figures(pn.Column(pn.Row(fig)))
    sizes = {(type(m).__name__, n, getattr(m, "text", None)): v for (m, n), v in figure_type_sizes(fig).items()}
    assert sizes[("Legend", "label_text_font_size", None)] == "16.0px"
    assert sizes[("Label", "text_font_size", "small")] == "12.0pt"
    assert sizes[("Label", "text_font_size", "big")] == "20.0px"        # larger type is left alone
    assert all(float(v[:-2]) >= (16 if v.endswith("px") else 12) for v in sizes.values())
    # a chapter page's figures get the same floor (chapter 6 asks for 10 px legends): 16 px, the
    # projector's smallest figure type at 1920×1080, whatever the screen (a page does not know it)
    from uikit.lazy import show_all
    ch = make_chapter(AcceptRuleChapter)
    show_all(ch.__panel__())             # its figures are built when the student scrolls to them
    panes = [p.object for p in ch.__panel__().select(pn.pane.Bokeh)]
    assert panes and all(float(v[:-2]) >= 16 for f in panes for v in figure_type_sizes(f).values()
                         if v.endswith("px"))


def test_glyph_text_is_sized_with_the_figure():
    """Labels drawn as glyphs (fig.text) grow with the axes and legends on a projector."""
    from uikit.figures import figure_type_sizes, finish_figures, static_figure, type_size
    fig = static_figure(height=100, width=100)
    small = fig.text(x=[0], y=[0], text=["+3"], text_font_size="12px")
    finish_figures(pn.Column(fig))
    sizes = figure_type_sizes(fig)
    assert sizes[(small.glyph, "text_font_size")] == "16.0px"          # raised to PAGE_TYPE
    assert type_size("12px", 1.5) == "21.0px"                          # the tour: MIN_TYPE, scaled


def test_a_chapter_page_leaves_its_glyph_copies_to_the_browser(make_chapter):
    """Every renderer of a chapter's figures sends one glyph: the nonselection and muted copies are
    the browser's ("auto"), so the page's document holds one glyph model per renderer."""
    from bokeh.document import Document
    from bokeh.models import Glyph, GlyphRenderer

    from chapters.ch10_breakeven import BreakEvenChapter
    from uikit.lazy import show_all
    view = make_chapter(BreakEvenChapter).__panel__()
    show_all(view)                        # its figures sit in a section built when scrolled to
    renderers = [r for p in view.select(pn.pane.Bokeh) for r in p.object.renderers
                 if isinstance(r, GlyphRenderer)]
    assert len(renderers) >= 5
    assert all(r.nonselection_glyph == "auto" and r.muted_glyph == "auto" for r in renderers)
    doc = Document()
    doc.add_root(view.get_root(doc))
    assert sum(isinstance(m, Glyph) for m in doc.models) == len(renderers)


def test_every_chapter_page_draws_figure_text_at_16_px_or_more(make_chapter):
    """Figure text ≥ 16 px on a projected chapter page at 1920×1080 (the page does not know the
    screen, so it holds at every size): every fixed type size of every figure a chapter shows."""
    from chapters.registry import chapter_pages
    from uikit.figures import figure_type_sizes
    from uikit.lazy import show_all
    small = []
    for page in chapter_pages():
        view = make_chapter(page.chapter_class).__panel__()
        show_all(view)                    # and the figures built when the student scrolls to them
        for pane in view.select(pn.pane.Bokeh):
            for (model, name), v in figure_type_sizes(pane.object).items():
                px = float(v[:-2]) * (4 / 3 if v.endswith("pt") else 1)
                if px < 16 - 0.05:
                    small.append(f"chapter {page.number}: {type(model).__name__}.{name} = {v}")
    assert not small, small[:5]
