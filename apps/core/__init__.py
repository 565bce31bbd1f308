"""What every app shares and no app owns: the DRF exception handler, input validation,
the admin's scoping and service mixins, ``current_user``, ``run_beside`` and
``queue_task``. It holds no models of users' data and imports no other app (DESIGN §2)."""
