"""uikit.lazy: a page section built the first time the student scrolls near it."""
import panel as pn
from bokeh.document import Document
from bokeh.models import Plot

from uikit.figures import PAGE_TYPE, finish_figures, static_figure
from uikit.lazy import PLACEHOLDER, Lazy, show_all


def line_figure(title: str):
    fig = static_figure(height=200, title=title)
    fig.line([0, 1], [0, 1])
    return fig


def page_models(view) -> list:
    doc = Document()
    doc.add_root(view.get_root(doc))
    return list(doc.models)


def test_a_section_is_sent_as_its_box_and_built_once_when_shown():
    built = []

    def build():
        built.append(1)
        return pn.pane.Bokeh(line_figure("below the fold"))
    section = Lazy(build, height=300)
    view = pn.Column(pn.pane.HTML("above the fold"), section)
    models = page_models(view)
    assert not built and not section.built
    assert not any(isinstance(m, Plot) for m in models)
    box = section.objects[0]
    assert box.height == 300 and PLACEHOLDER in box.css_classes
    section.scrolled_near()         # the browser's message; outside a served page it builds at once
    content = section.show()        # and only once
    assert built == [1] and section.built and section.objects == [content]
    assert any(isinstance(m, Plot) for m in page_models(view))


def test_a_section_finishes_its_figures_as_the_page_does():
    above, below = line_figure("above"), line_figure("below")
    below.title.text_font_size = "10px"
    view = pn.Column(pn.pane.Bokeh(above), Lazy(lambda: pn.pane.Bokeh(below), height=200))
    finish_figures(view)
    assert below.title.text_font_size == "10px"          # not built: not finished yet
    show_all(view)
    assert below.title.text_font_size == f"{PAGE_TYPE['px']:.1f}px"
    # the page's one ticker and formatter serve the figure built later too
    assert below.xaxis[0].ticker is above.xaxis[0].ticker
    assert below.yaxis[0].formatter is above.yaxis[0].formatter


def test_show_all_builds_sections_inside_sections():
    inner = Lazy(lambda: pn.pane.HTML("inner"), height=50)
    outer = Lazy(lambda: pn.Column(pn.pane.HTML("outer"), inner), height=100)
    view = pn.Column(outer)
    assert show_all(view) == [outer, inner]
    assert inner.built and show_all(view) == []


def test_a_section_that_changes_the_page_s_models_walks_its_graph_once(monkeypatch):
    """A section whose figure takes in models the page holds already (legend items, sources) is
    built with the document's models frozen: Bokeh walks the page's model graph once, not once
    per change."""
    from bokeh.document.models import DocumentModelManager
    from bokeh.models import Legend, LegendItem
    from bokeh.models.callbacks import CustomJS

    items = [LegendItem(label=f"line {i}") for i in range(3)]
    holder = pn.pane.Bokeh(line_figure("above"))
    holder.object.js_on_change("tags", CustomJS(code="", args=dict(items=items)))   # the page holds the items

    def build():
        fig = line_figure("below")
        for item in items:
            item.renderers = [fig.line([0, 1], [1, 0])]
        fig.add_layout(Legend(items=items), "below")
        return pn.pane.Bokeh(fig)
    section = Lazy(build, height=200)
    view = pn.Column(holder, section)
    doc = Document()
    doc.add_root(view.get_root(doc))
    walks = []
    original = DocumentModelManager.recompute
    monkeypatch.setattr(DocumentModelManager, "recompute", lambda self: (walks.append(1), original(self))[1])
    section.show()
    assert len(walks) == 1
    assert set(items) <= set(doc.models)
