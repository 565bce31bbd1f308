"""Signals accounts sends to the apps above it, which it must not import (DESIGN §2)."""

from django.dispatch import Signal

# Sent by ``user_create`` inside its transaction, with ``user``: the projects app gives the
# new user a Personal project. A receiver that raises rolls the whole signup back.
user_created = Signal()
