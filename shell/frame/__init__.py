"""The page frame: Panel's settings for the server, one page per session and the router to it.

    app          configure() and build_app(): one page per Panel session (app.py calls them); the
                 page itself (SessionPage), which the export fills too
    classstate   the server's class: one object holding everything kept across pages, made at start
    pages        the landing page, navigation, pager, and each page's content (page_content)
    standalone   a page built outside a server (the export): the two Panel internals it needs
    loading      the model pair loading in the background, with progress the pages show
    warmup       the default demos computed once at start, so a first click answers at once
    heap         the garbage collector kept off the event loop the class shares
    quietlog     the server's log: quiet by default, everything with --verbose

Above every other part of shell/: it composes the room, the poll, the lecturer and the tour.
"""
