"""The lab's pages: one Panel Viewer per chapter (see chapters.registry for the list)."""
