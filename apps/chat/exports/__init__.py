"""Importing the chat histories people already have: ChatGPT's and Claude's data exports.

``parse`` reads an export (the zip or its ``conversations.json``) into typed
conversations, whatever vendor it came from; ``store`` writes them as Cairn conversations,
once (a second import of the same export adds nothing); ``tasks`` runs a whole import in
the background and keeps its progress on the ``ChatImport`` row.
"""
