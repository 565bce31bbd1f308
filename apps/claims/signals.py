"""Signals other apps listen to without this app depending on them (indexing → claims)."""

from django.dispatch import Signal

# Sent inside the writing transaction with ``claim_ids`` whenever claims' embedded text
# changed: a receiver's writes (the work it owes) commit or roll back with the claims.
claims_content_changed = Signal()
