"""The memory actions (DESIGN §10): one function per thing a person or a model can do to
memory — remember, edit, complete, restore, retract, pin, list, search, read a passage,
get or set a fact — each applying the memory mode, the cite threshold and the input rules
once. The chat tools, MCP, REST, the pages and the admin are adapters that parse
(``schemas``), call (``actions``, ``reading``) and format; a refusal is one
``MemoryRefusal`` naming its field, whichever door it came through."""
