"""Claude's memory tools (DESIGN §7 step 9): ``schemas`` declares them to the model and
parses its calls; ``executor`` runs them for one turn, scoped to its user.

Nothing is imported here: the providers read the schemas without loading the executor."""
