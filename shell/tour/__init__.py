"""The guided tour: full screen, one step per page, for a projector.

    view         the tour's page: its deck of steps, keys and the step on screen
    steps        one short text per step, each about the live components of one chapter
    items        the chapters' live components under a step, built once per session
    fit          a step grows to fill the projector

Imports no other part of shell/.
"""
