"""One model worker for all pages, as the server runs it: fair per-browser turns and rate limits, a
bounded cache, and the process-wide pair in use. Imports lab, never the pages."""
