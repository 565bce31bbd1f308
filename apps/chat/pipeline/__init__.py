"""The reply pipeline (DESIGN §7): a sequence of small named steps, each testable alone.

`prepare.prepare_turn` runs the synchronous steps (save the user message, references,
facts, indexing, memory, sources, prompt); `stream.run_turn` streams the answer and
`finish.finish_turn` reviews, footnotes and saves it.
"""
