"""The lecturer's side: token-gated controls and the class-wide actions they start.

    controls     the lecturer's view: switch the pair for everyone, reset the class, the class's poll
    drafting     the line on the lab's default drafting for the pair in use
    classwide    the lecturer's actions applied in every process serving the class

Imports the poll, the room and the store below it.
"""
