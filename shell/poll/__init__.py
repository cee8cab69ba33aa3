"""The class poll: every locked "Pause & predict" answer, its tallies and the lecturer's reveal.

    answers      a page's answer and the lecturer's view of one question
    store        the poll's store: the questions, each browser's answer, which are revealed
    shared       the same poll in the class's shared store, for several server processes

Imports the room and the store below it.
"""
