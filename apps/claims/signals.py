"""Signals other apps listen to without this app depending on them (indexing → claims)."""

from django.dispatch import Signal

# Sent after commit with ``claim_ids`` whenever claims' embedded text changed.
claims_content_changed = Signal()
