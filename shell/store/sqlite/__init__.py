"""The class store in one SQLite file every process of the class opens (the default backend).

    store      SQLiteStore: the file, its transactions and faults, processes and events
    rows       the poll, the snapshots and the shared values as rows of its tables

Standard library only; WAL mode, so readers never wait for a writer, and every write is one short
transaction. Who may write the file: shell.store.files.
"""
from shell.store.sqlite.store import SQLiteStore

__all__ = ("SQLiteStore",)
