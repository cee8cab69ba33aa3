"""The server around the pages: build and routing, sessions and snapshots, loading, the lecturer's
controls, and the guided tour.

    app          configure() and build_app(): one page per Panel session (app.py calls them)
    classstate   the server's class: one object that holds everything kept across pages (its
                 sessions, snapshots, poll, pair in use, store…), made when the server starts
    pages        the landing page, navigation, pager and the page router
    sessions     each page's browser and student state, and the classroom of open sessions
    loading      the model pair loading in the background, with progress
    lecturer     token-gated controls: switch the pair for everyone, reset the class
    tour, tour_steps   the full-screen guided tour and its steps

The pacing of work on Bokeh's event loop is uikit.pacing.
"""
