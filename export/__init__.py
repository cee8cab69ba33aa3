"""The static export: the lab as a folder of pages that open offline (`python -m lab export DIR`).

Above the shell: each page is the served page itself, made by the shell's page API
(shell.frame.app.SessionPage.fill, shell.frame.pages.page_content) in a document of its own
(shell.frame.standalone); its controls are pressed and what the page's own callbacks change is
recorded for the player (assets/export.js). It touches no Panel or Bokeh private name.
"""
