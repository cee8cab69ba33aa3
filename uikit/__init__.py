"""The shared UI kit of the lab's pages, one module per family.

    palette   colours, icons and labels of every token state (colour is never the only cue)
    styles    the stylesheets (CSS files in assets/) the components use
    state     LabState: one student's prompt, sampling settings and answers
    tokens    token chips, strips, lanes and legends
    figures   Bokeh figures without tools, type sizes legible on a projector
    predict   the "Pause & predict" card
    panels    the working line, takeaway box, settings panel and pair badge
    clicks    every button's click, dropped when the button is disabled or its browser clicks too fast
    pacing    every use of Panel/Bokeh internals to pace work on the shared event loop

It depends on lab/ only; chapters and the shell build on it.
"""
