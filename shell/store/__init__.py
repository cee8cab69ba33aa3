"""The class's store shared by the server processes of one class, and the events between them.

    shared       the one SQLite file every process of the class opens
    events       the store's events between processes, and the thread that hears them
    files        who may write the store's file: only the server's own user
    listeners    subscribers to a process-wide store, one failing page never stopping the rest

The bottom of shell/: imports nothing else of it.
"""
