"""Who is in the room: each page's browser and student, and what they may send.

    identity     signed browser ids and client addresses, limited per address
    gate         the page gate: a page request counted against its sender before a session is built
    attempts     wrong lecturer tokens, counted per browser, per address and on the whole server
    browsers     which browser shows each page, its tabs and its share of clicks and messages
    sessions     each page's browser and student state, and the open pages of the class
    snapshots    a browser's settings and answers across page loads
    line         the line of pages waiting for their chapter, each told its place
    tabclose     a closed tab acted on at once

Imports only shell.store below it.
"""
