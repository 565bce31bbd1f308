"""Signals other apps listen to without this app depending on them (indexing → claims)."""

from django.dispatch import Signal

# Sent inside the writing transaction with ``claim_ids`` whenever claims' embedded text
# changed: a receiver's writes (the work it owes) commit or roll back with the claims.
claims_content_changed = Signal()

# Sent inside claim_supersede's transaction with ``old`` and ``new`` (the new, current
# version): what pointed at the memory — a context's membership, a conversation's pin —
# moves to the new version whichever door made it (issue 30: one identity per memory).
claim_superseded = Signal()
