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
    assert sizes[("Legend", "label_text_font_size", None)] == "14.0px"
    assert sizes[("Label", "text_font_size", "small")] == "10.5pt"
    assert sizes[("Label", "text_font_size", "big")] == "20.0px"        # larger type is left alone
    assert all(float(v[:-2]) >= (14 if v.endswith("px") else 10.5) for v in sizes.values())
    # a chapter page's figures get the same floor (chapter 6 asks for 10 px legends)
    ch = make_chapter(AcceptRuleChapter)
    panes = [p.object for p in ch.__panel__().select(pn.pane.Bokeh)]
    assert panes and all(float(v[:-2]) >= 14 for f in panes for v in figure_type_sizes(f).values()
                         if v.endswith("px"))


def test_glyph_text_is_sized_with_the_figure():
    """Labels drawn as glyphs (fig.text) grow with the axes and legends on a projector."""
    from uikit.figures import figure_type_sizes, finish_figures, static_figure, type_size
    fig = static_figure(height=100, width=100)
    small = fig.text(x=[0], y=[0], text=["+3"], text_font_size="12px")
    finish_figures(pn.Column(fig))
    sizes = figure_type_sizes(fig)
    assert sizes[(small.glyph, "text_font_size")] == "14.0px"          # raised to MIN_TYPE
    assert type_size(sizes[(small.glyph, "text_font_size")], 1.5) == "21.0px"


def test_a_chapter_page_leaves_its_glyph_copies_to_the_browser(make_chapter):
    """Every renderer of a chapter's figures sends one glyph: the nonselection and muted copies are
    the browser's ("auto"), so the page's document holds one glyph model per renderer."""
    from bokeh.document import Document
    from bokeh.models import Glyph, GlyphRenderer

    from chapters.ch10_breakeven import BreakEvenChapter
    view = make_chapter(BreakEvenChapter).__panel__()
    renderers = [r for p in view.select(pn.pane.Bokeh) for r in p.object.renderers
                 if isinstance(r, GlyphRenderer)]
    assert len(renderers) >= 5
    assert all(r.nonselection_glyph == "auto" and r.muted_glyph == "auto" for r in renderers)
    doc = Document()
    doc.add_root(view.get_root(doc))
    assert sum(isinstance(m, Glyph) for m in doc.models) == len(renderers)
