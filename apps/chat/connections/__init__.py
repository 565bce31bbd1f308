"""Model connections: the Anthropic keys and OpenAI-compatible servers the site's
administrator adds on the connections page, the default and cheap models, and the model
each conversation picks. Keys are kept encrypted (``secrets.py``); the environment's
ANTHROPIC_API_KEY / CAIRN_LLM_* win over what the page stores (``selectors.py``)."""
