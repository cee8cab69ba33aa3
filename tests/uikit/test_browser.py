"""Sliders computed in the browser (uikit.browser): their parameter followed without Panel's hold."""
import panel as pn
import param

from uikit.browser import browser_slider


def test_a_browser_slider_follows_its_parameter_without_panels_hold():
    class Knob(pn.viewable.Viewer):
        alpha = param.Number(default=0.5, bounds=(0, 1), step=0.01)
        gamma = param.Integer(default=4, bounds=(1, 12))

    knob = Knob()
    a, g = browser_slider(knob.param.alpha), browser_slider(knob.param.gamma)
    assert isinstance(a, pn.widgets.FloatSlider) and isinstance(g, pn.widgets.IntSlider)
    assert a._debounce == 0 and pn.widgets.FloatSlider._debounce > 0
    a.value, g.value = 0.7, 9
    assert (knob.alpha, knob.gamma) == (0.7, 9)
