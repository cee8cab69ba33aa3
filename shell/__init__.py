"""The server around the pages, one sub-package per idea; each imports only those listed after it
(tests/test_imports.py):

    frame        the page frame: settings, one page per session, the router, loading, the class state
    lecturer     token-gated controls: switch the pair for everyone, reset the class
    tour         the full-screen guided tour and its steps
    poll         the class poll and its tallies
    room         who is in the class: browsers, pages, the page gate, the line of pages
    store        the store several server processes of one class share

    export       the static, offline copy of the lab (python -m lab export)
    start.py     Panel's --setup script: the class state made and the pair loaded as the server starts

The pacing of work on Bokeh's event loop is intercept.pacing.
"""
