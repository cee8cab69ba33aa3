"""The server around the pages: build and routing, sessions and snapshots, loading, the lecturer's
controls, and the guided tour.

    app          configure() and build_app(): one page per Panel session (app.py calls them)
    pages        the landing page, navigation, pager and the page router
    sessions     a browser's settings across page loads, and the classroom of open sessions
    loading      the model pair loading in the background, with progress
    lecturer     token-gated controls: switch the pair for everyone, reset the class
    tour, tour_steps   the full-screen guided tour and its steps

The process-wide objects of the server live here: SNAPSHOTS and CLASSROOM (sessions), LOADER
(loading). The pacing of work on Bokeh's event loop is uikit.pacing.
"""
